/** A data module (workerd's `Data` module type, `platform/edge/sources.ts`): the file's bytes. */
declare module "*.bin.gz" {
  const bytes: ArrayBuffer;
  export default bytes;
}

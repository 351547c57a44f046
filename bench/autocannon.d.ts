/** The part of autocannon's API the benches use (the package ships no types). */
declare module "autocannon" {
  interface Options {
    url: string;
    connections?: number;
    pipelining?: number;
    duration?: number;
    workers?: number;
    headers?: Record<string, string>;
  }
  interface Histogram {
    average: number;
    total: number;
  }
  interface Result {
    requests: Histogram;
    latency: Histogram & { p99: number };
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    "2xx": number;
  }
  function autocannon(options: Options): Promise<Result>;
  export default autocannon;
}

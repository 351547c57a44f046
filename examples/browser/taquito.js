// The parts of Taquito 25 the page uses; `npm run build` bundles them into build/taquito.js.
export { TezosToolkit, PollingSubscribeProvider } from "@taquito/taquito";
export { RpcClient } from "@taquito/rpc";
export { InMemorySigner } from "@taquito/signer";
export { HttpBackend, HttpResponseError, HttpTimeoutError } from "@taquito/http-utils";

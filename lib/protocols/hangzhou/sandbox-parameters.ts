/**
 * The sandbox protocol parameters Octez uses for Hangzhou (`constants_sandbox` with the five
 * bootstrap accounts of 4,000,000 tez and the sandbox fundraiser commitments): the parameters
 * a sandbox node activates Hangzhou with unless given others.
 * @module
 */
import type { Json } from "../../encoding/codec.ts";
import { parametricConstants, SANDBOX_CONSTANTS } from "./constants.ts";

/** Bootstrap accounts: public key and balance in mutez (bootstrap1..5). */
export const SANDBOX_BOOTSTRAP_ACCOUNTS: readonly (readonly [string, string])[] = [
    ["edpkuBknW28nW72KG6RoHtYW7p12T6GKc7nAbwYX5m8Wd9sDVC9yav", "4000000000000"],
    ["edpktzNbDAUjUk697W7gYg2CRuBQjyPxbEg8dLccYYwKSKvkPvjtV9", "4000000000000"],
    ["edpkuTXkJDGcFd5nh6VvMz8phXxU3Bi7h6hqgywNFi1vZTfQNnS1RV", "4000000000000"],
    ["edpkuFrRoDSEbJYgxRtLx2ps82UdaYc1WwfS9sE11yhauZt5DgCHbU", "4000000000000"],
    ["edpkv8EUUH68jmo3f7Um5PezmfGrRF24gnfLpH3sVNwJnV5bVCxL2n", "4000000000000"],
];

/** Fundraiser commitments of the sandbox: blinded key hash and amount in mutez. */
export const SANDBOX_COMMITMENTS: readonly (readonly [string, string])[] = [
    ["btz1bRL4X5BWo2Fj4EsBdUwexXqgTf75uf1qa", "23932454669343"],
    ["btz1SxjV1syBgftgKy721czKi3arVkVwYUFSv", "72954577464032"],
    ["btz1LtoNCjiW23txBTenALaf5H6NKF1L3c1gw", "217487035428348"],
    ["btz1SUd3mMhEBcWudrn8u361MVAec4WYCcFoy", "4092742372031"],
    ["btz1MvBXf4orko1tsGmzkjLbpYSgnwUjEe81r", "17590039016550"],
    ["btz1LoDZ3zsjgG3k3cqTpUMc9bsXbchu9qMXT", "26322312350555"],
    ["btz1RMfq456hFV5AeDiZcQuZhoMv2dMpb9hpP", "244951387881443"],
    ["btz1Y9roTh4A7PsMBkp8AgdVFrqUDNaBE59y1", "80065050465525"],
    ["btz1Q1N2ePwhVw5ED3aaRVek6EBzYs1GDkSVD", "3569618927693"],
    ["btz1VFFVsVMYHd5WfaDTAt92BeQYGK8Ri4eLy", "9034781424478"],
];

/** The sandbox parameters JSON, as `tezos-client activate protocol … and parameters <file>` sends it. */
export function sandboxParameters(): { [key: string]: Json } {
  const constants = parametricConstants.toJson(SANDBOX_CONSTANTS) as { [key: string]: Json };
  return {
    bootstrap_accounts: SANDBOX_BOOTSTRAP_ACCOUNTS.map(([k, v]) => [k, v]),
    commitments: SANDBOX_COMMITMENTS.map(([k, v]) => [k, v]),
    ...constants,
  };
}

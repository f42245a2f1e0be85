export declare const GATEWAY_NODE_FLAGS: readonly string[];

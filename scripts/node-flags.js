// The node flags the gateway's server runs under, wherever it is launched: `npm start`,
// `npm run serve`, the systemd unit, the container image and `npm run bench` all start
// `node <flags> bin/gateway.js serve` (test/unit/deploy-files.test.ts checks they agree).
//
// `--v8-pool-size=0`: V8's helper threads fitted to the cores the process may use (one fewer
// than those, at least one) instead of Node's fixed four. On a gateway confined to one core (a
// one-vCPU VM, a cpuset, the bench's pinned server) four helpers doing concurrent marking and
// parallel scavenges take the core from the thread that answers requests, which makes every
// answer's tail. Decision 0421; figures in docs/performance.md, P61.
export const GATEWAY_NODE_FLAGS = ['--v8-pool-size=0'];

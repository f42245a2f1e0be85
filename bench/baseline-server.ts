/**
 * The yardstick: the bare stack the gateway is built on (Koa 3 + @koa/router + koa-bodyparser),
 * parsing a JSON POST and answering 202 with nothing else — no auth, no validation, no storage.
 * The gateway's ratio to this is what its own work costs. Run as a child by bench/run.ts, so it
 * gets a core of its own, like the gateway does.
 */
import Router from '@koa/router';
import Koa from 'koa';
import bodyParser from 'koa-bodyparser';

const app = new Koa();
const router = new Router();
router.post('/GWENDPOINTAPI/:base/:route', (ctx) => {
  // Touch the parsed body so the parse cannot be skipped by a lazy parser.
  ctx.status = typeof ctx.request.body === 'object' ? 202 : 400;
  ctx.body = { status: 'queued' };
});
app.use(bodyParser({ enableTypes: ['json'], jsonLimit: '1mb' }));
app.use(router.routes());

const server = app.listen(0, '127.0.0.1', () => {
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  process.stdout.write(`Baseline listening on http://127.0.0.1:${port}/GWENDPOINTAPI\n`);
});
// Same keep-alive settings as the gateway's server, so connection handling is comparable.
server.keepAliveTimeout = 5_000;
server.headersTimeout = 30_000;

const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);

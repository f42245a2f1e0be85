// throwaway experiment: gateway with options (not part of the deliverable)
import { createGateway } from '../../server/gateway';
import { startServer } from '../../server/http/start-server';
import { createLogger } from '../../server/logger';
const dataDir = process.argv[2]!;
const gateway = await createGateway({ database: { kind: 'sqlite', filename: dataDir + '/gateway.db' }, adminPassword: process.env.GATEWAY_ADMIN_PASSWORD, logger: createLogger({ quiet: true }), processQueue: process.env.EXP_WORKER !== '0' });
const server = await startServer(gateway.app, { port: 0, host: '127.0.0.1' });
process.stdout.write(`Gateway listening on http://127.0.0.1:${server.port}/GWENDPOINTAPI\n`);
process.on('SIGTERM', () => void server.stop(1000).then(() => gateway.close()).then(() => process.exit(0)));

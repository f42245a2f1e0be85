import { Receiver } from './receiver';
import { startTestGateway, type TestGateway } from './test-gateway';

/**
 * A test gateway and a real receiver with one destination, "WMS", posting to it (batches go at
 * once: `batchMaxWaitMs` 0, unless `destination` says otherwise). Both are pushed on `open`
 * for the test file's `afterEach` to close.
 */
export async function gatewayWithDestination(
  open: { close(): Promise<void> }[],
  destination: Record<string, unknown> = {},
): Promise<{ gw: TestGateway; receiver: Receiver; destination: any; id: number }> {
  const gw = await startTestGateway();
  open.push(gw);
  const receiver = await Receiver.start();
  open.push(receiver);
  const created = await gw.admin('POST', '/destinations', {
    name: 'WMS',
    url: receiver.url,
    batchMaxWaitMs: 0,
    ...destination,
  });
  if (created.status !== 201) throw new Error(`creating the destination answered ${created.status}`);
  return { gw, receiver, destination: created.body, id: created.body.id as number };
}

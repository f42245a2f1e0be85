import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { staticAdmin } from '../../server/http/static-admin';
import { startTestGateway, type TestGateway } from '../helpers/test-gateway';

/** A raw GET: fetch would undo the encoding this test looks at. */
function get(url: string, acceptEncoding?: string) {
  return new Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }>((resolve, reject) => {
    request(url, { headers: acceptEncoding ? { 'accept-encoding': acceptEncoding } : {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    })
      .on('error', reject)
      .end();
  });
}

describe('web admin assets: gzip or brotli when the client accepts it (issue 26 item 11)', () => {
  let gw: TestGateway;
  const script = `console.log(${JSON.stringify('gateway '.repeat(5000))});\n`;
  const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');

  beforeAll(async () => {
    const root = mkdtempSync(join(tmpdir(), 'gw-admin-'));
    mkdirSync(join(root, 'assets'));
    writeFileSync(join(root, 'index.html'), '<!doctype html><title>Gateway</title>');
    writeFileSync(join(root, 'assets', 'app.js'), script);
    writeFileSync(join(root, 'assets', 'logo.png'), png);
    gw = await startTestGateway({ adminAssets: staticAdmin(root) });
  });
  afterAll(() => gw.close());

  const url = (path: string) => `${gw.base}/_admin/${path}`;

  it('answers brotli when accepted, else gzip, else the file as is', async () => {
    const br = await get(url('assets/app.js'), 'gzip, deflate, br');
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.vary).toMatch(/Accept-Encoding/i);
    expect(br.body.length).toBeLessThan(script.length / 10);
    expect(brotliDecompressSync(br.body).toString()).toBe(script);

    const gz = await get(url('assets/app.js'), 'gzip');
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.body).toString()).toBe(script);

    const plain = await get(url('assets/app.js'));
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.toString()).toBe(script);

    const html = await get(url(''), 'br');
    expect(html.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(html.body).toString()).toContain('<title>Gateway</title>');
  });

  it('leaves already-compressed formats alone and serves a repeat from the same compressed bytes', async () => {
    const image = await get(url('assets/logo.png'), 'br, gzip');
    expect(image.headers['content-encoding']).toBeUndefined();
    expect(image.body).toEqual(png);
    const [first, second] = [await get(url('assets/app.js'), 'br'), await get(url('assets/app.js'), 'br')];
    expect(second.body).toEqual(first.body);
  });
});

import { execFile } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkServerIdentity, type PeerCertificate } from 'node:tls';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../server/logger';
import { decryptBackup } from '../../server/services/backup';
import { startGateway, type StartedGateway } from '../../server/start-gateway';
import { generateSelfSigned, keyFilePath } from '../../server/tls/certificate';
import { ADMIN_PASSWORD } from '../helpers/test-gateway';

const run = promisify(execFile);

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  fingerprint?: string;
}

/** One HTTPS request with Node's client: a real TLS handshake, verified against `ca`. */
function httpsGet(
  url: string,
  options: { ca?: string; pin?: string; method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: options.method ?? 'GET',
        ca: options.ca,
        headers: options.headers,
        agent: false,
        // Fingerprint pinning on top of the chain check: the certificate must be this one.
        checkServerIdentity: (host: string, cert: PeerCertificate) => {
          if (options.pin && cert.fingerprint256 !== options.pin)
            return new Error(`fingerprint ${cert.fingerprint256} is not pinned`);
          return checkServerIdentity(host, cert);
        },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body,
            fingerprint: (res.socket as unknown as { getPeerCertificate(): PeerCertificate }).getPeerCertificate?.()
              ?.fingerprint256,
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

async function adminToken(base: string, ca: string): Promise<string> {
  const res = await httpsGet(`${base}/token`, {
    ca,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ userName: 'admin', password: ADMIN_PASSWORD }),
  });
  expect(res.status).toBe(200);
  return (JSON.parse(res.body) as { access_token: string }).access_token;
}

let dataDir: string;
let gw: StartedGateway;
let httpBase: string;
let httpsBase: string;
let ca: string;

async function start(): Promise<void> {
  gw = await startGateway({
    dataDir,
    port: 0,
    host: '127.0.0.1',
    adminPassword: ADMIN_PASSWORD,
    logger: silentLogger,
  });
  httpBase = `http://127.0.0.1:${gw.server.port}/GWENDPOINTAPI`;
  httpsBase = `https://127.0.0.1:${gw.https?.port}/GWENDPOINTAPI`;
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'gateway-https-'));
  await start();
  ca = await (await fetch(`${httpBase}/_tls/certificate.pem`)).text();
});
afterAll(async () => {
  await gw.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('HTTPS listener (tlsMode both, the default)', () => {
  it('listens on HTTP and HTTPS, port 0 picking a free HTTPS port too; /status lists both', async () => {
    expect(gw.https).not.toBeNull();
    expect(gw.https!.port).not.toBe(8443);
    expect(gw.https!.port).not.toBe(gw.server.port);
    const token = await adminToken(httpsBase, ca);
    const status = await httpsGet(`${httpsBase}/_admin/api/status`, {
      ca,
      headers: { authorization: `Bearer ${token}` },
    });
    expect(JSON.parse(status.body).listenUrls).toEqual([`${httpBase}`, `${httpsBase}`]);
  });

  it('generates an ECDSA P-256 certificate for localhost, 127.0.0.1 and ::1, 825 days, key file 0600', () => {
    const cert = new X509Certificate(ca);
    expect(cert.publicKey.asymmetricKeyType).toBe('ec');
    expect(cert.publicKey.asymmetricKeyDetails?.namedCurve).toBe('prime256v1');
    expect(cert.subjectAltName).toContain('DNS:localhost');
    expect(cert.subjectAltName).toContain('IP Address:127.0.0.1');
    expect(cert.subjectAltName).toContain('IP Address:0:0:0:0:0:0:0:1');
    const days = (Date.parse(cert.validTo) - Date.parse(cert.validFrom)) / 86_400_000;
    expect(Math.round(days)).toBe(825);
    expect(statSync(keyFilePath(dataDir)).mode & 0o777).toBe(0o600);
  });

  it('Node https trusts it with the certificate as CA, and with the fingerprint pinned', async () => {
    const token = await adminToken(httpsBase, ca);
    const info = await httpsGet(`${httpsBase}/_admin/api/tls`, { ca, headers: { authorization: `Bearer ${token}` } });
    expect(info.status).toBe(200);
    const tls = JSON.parse(info.body);
    expect(tls.source).toBe('generated');
    expect(tls.fingerprintSha256).toBe(new X509Certificate(ca).fingerprint256);
    expect(Object.keys(tls).sort()).toEqual([
      'altNames',
      'fingerprintSha256',
      'notAfter',
      'notBefore',
      'source',
      'subject',
    ]);
    const pinned = await httpsGet(`${httpsBase}/_health`, { ca, pin: tls.fingerprintSha256 });
    expect(pinned.status).toBe(200);
    await expect(httpsGet(`${httpsBase}/_health`, { ca, pin: 'AA:BB' })).rejects.toThrow(/not pinned/);
  });

  it('a client refuses a wrong certificate (another CA, or none)', async () => {
    const other = await generateSelfSigned();
    await expect(httpsGet(`${httpsBase}/_health`, { ca: other.certificatePem })).rejects.toThrow(/self.signed|verify/i);
    await expect(httpsGet(`${httpsBase}/_health`)).rejects.toThrow(/self.signed|verify/i);
  });

  it('curl --cacert with the downloaded certificate', async () => {
    const file = join(dataDir, 'downloaded.pem');
    writeFileSync(file, ca);
    const { stdout } = await run('curl', [
      '-sS',
      '--cacert',
      file,
      '-o',
      '/dev/null',
      '-w',
      '%{http_code}',
      `${httpsBase}/_health`,
    ]);
    expect(stdout).toBe('200');
    const wrong = join(dataDir, 'wrong.pem');
    writeFileSync(wrong, (await generateSelfSigned()).certificatePem);
    // curl exit 60: peer certificate cannot be authenticated with the given CA.
    await expect(run('curl', ['-sS', '--cacert', wrong, `${httpsBase}/_health`])).rejects.toMatchObject({ code: 60 });
  });

  it('installs an operator certificate (PUT /tls) and serves it from the next handshake, no restart', async () => {
    const token = await adminToken(httpsBase, ca);
    const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const mine = await generateSelfSigned();
    const other = await generateSelfSigned();
    const mismatch = await httpsGet(`${httpsBase}/_admin/api/tls`, {
      ca,
      method: 'PUT',
      headers: auth,
      body: JSON.stringify({ certificatePem: mine.certificatePem, privateKeyPem: other.privateKeyPem }),
    });
    expect(mismatch.status).toBe(400);
    expect(JSON.parse(mismatch.body).code).toBe('validation_failed');
    const garbage = await httpsGet(`${httpsBase}/_admin/api/tls`, {
      ca,
      method: 'PUT',
      headers: auth,
      body: '{"certificatePem":"x"}',
    });
    expect(JSON.parse(garbage.body).code).toBe('validation_failed');

    const installed = await httpsGet(`${httpsBase}/_admin/api/tls`, {
      ca,
      method: 'PUT',
      headers: auth,
      body: JSON.stringify({ certificatePem: mine.certificatePem, privateKeyPem: mine.privateKeyPem }),
    });
    expect(installed.status).toBe(200);
    const info = JSON.parse(installed.body);
    expect(info.source).toBe('installed');
    expect(info.fingerprintSha256).toBe(new X509Certificate(mine.certificatePem).fingerprint256);
    const served = await httpsGet(`${httpsBase}/_health`, { ca: mine.certificatePem });
    expect(served.fingerprint).toBe(info.fingerprintSha256);
    await expect(httpsGet(`${httpsBase}/_health`, { ca })).rejects.toThrow();
    expect(await (await fetch(`${httpBase}/_tls/certificate.pem`)).text()).toBe(mine.certificatePem);

    // Regenerate: a new self-signed one, served at once too.
    const regenerated = await httpsGet(`${httpsBase}/_admin/api/tls/regenerate`, {
      ca: mine.certificatePem,
      method: 'POST',
      headers: auth,
    });
    expect(regenerated.status).toBe(200);
    expect(JSON.parse(regenerated.body).source).toBe('generated');
    ca = await (await fetch(`${httpBase}/_tls/certificate.pem`)).text();
    expect((await httpsGet(`${httpsBase}/_health`, { ca })).status).toBe(200);

    // Both changes are audited with public facts only; refused ones are not.
    const audit = await httpsGet(`${httpsBase}/_admin/api/audit`, { ca, headers: auth });
    const entries = (JSON.parse(audit.body) as { items: Record<string, unknown>[] }).items.filter(
      (entry) => entry.resource === 'tls',
    );
    expect(entries.map((entry) => [entry.action, entry.resourceId])).toEqual([
      ['regenerate', null],
      ['update', null],
    ]);
    expect(entries[1]?.summary).toContain(info.fingerprintSha256);
    expect(audit.body).not.toContain('PRIVATE KEY');
  });

  it('tlsMode and httpsPort changes answer restartRequired; tlsMode on redirects HTTP with 308', async () => {
    const token = await adminToken(httpsBase, ca);
    const put = await httpsGet(`${httpsBase}/_admin/api/settings`, {
      ca,
      method: 'PUT',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ tlsMode: 'on' }),
    });
    expect(JSON.parse(put.body)).toMatchObject({ tlsMode: 'on', httpsPort: 8443, restartRequired: true });
    await gw.stop();
    await start();
    const redirected = await fetch(`${httpBase}/_health?probe=1`, { redirect: 'manual' });
    expect(redirected.status).toBe(308);
    expect(redirected.headers.get('location')).toBe(`${httpsBase}/_health?probe=1`);
    const post = await fetch(`${httpBase}/token`, { method: 'POST', body: '{}', redirect: 'manual' });
    expect(post.status).toBe(308);
    expect((await httpsGet(`${httpsBase}/_health`, { ca })).status).toBe(200);
  });

  it('backups carry the TLS settings, and the private key only when the export asks for it', async () => {
    const context = { actor: 'test' };
    const keyPem = readFileSync(keyFilePath(dataDir), 'utf8');
    const decrypt = async (data: string) =>
      JSON.parse((await decryptBackup(Buffer.from(data, 'base64'), 'passphrase-1')).toString('utf8'));
    const plainFile = await gw.gateway.handlers.exportBackup({ passphrase: 'passphrase-1' }, context);
    const plainDoc = await decrypt(plainFile.data);
    expect(plainDoc.config.settings).toMatchObject({ tlsMode: 'on' });
    expect(plainDoc.tls).toBeUndefined();
    expect(JSON.stringify(plainDoc)).not.toContain('PRIVATE KEY');

    const withKey = await gw.gateway.handlers.exportBackup(
      { passphrase: 'passphrase-1', includeTlsKey: true },
      context,
    );
    expect(Buffer.from(withKey.data, 'base64').toString('latin1')).not.toContain('PRIVATE KEY'); // encrypted
    const doc = await decrypt(withKey.data);
    expect(doc.tls.privateKeyPem).toBe(keyPem);
    expect(doc.tls.certificatePem).toBe(ca);

    // Importing it brings the key back after a regenerate, served at the next handshake.
    await gw.gateway.handlers.regenerateTls(undefined, context);
    await expect(httpsGet(`${httpsBase}/_health`, { ca })).rejects.toThrow();
    await gw.gateway.handlers.importBackup({ file: withKey.data, passphrase: 'passphrase-1' }, context);
    expect((await httpsGet(`${httpsBase}/_health`, { ca })).status).toBe(200);
  });
});

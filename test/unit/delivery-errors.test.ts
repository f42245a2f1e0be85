import { describe, expect, it } from 'vitest';
import { explainDeliveryError } from '../../renderer/src/lib/delivery-errors';

/** Issue 40 item 6: delivery failures in plain words, the raw code kept for the small print. */
describe('delivery failures in words', () => {
  it('says a refused connection as the issue asks, with its address and the raw code apart', () => {
    expect(explainDeliveryError(null, 'ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:36775')).toEqual({
      sentence: 'The receiver refused the connection (127.0.0.1:36775): nothing listens there, or a firewall says no.',
      raw: 'ECONNREFUSED',
    });
  });

  it('words the common network failures, naming the host or address they name', () => {
    const say = (message: string) => explainDeliveryError(null, message);
    expect(say('ENOTFOUND: getaddrinfo ENOTFOUND wms.example')).toEqual({
      sentence: 'The receiver’s host name could not be found (wms.example): check the URL and the DNS.',
      raw: 'ENOTFOUND',
    });
    expect(say('ETIMEDOUT: connect ETIMEDOUT 10.0.0.5:443').sentence).toBe(
      'The receiver could not be reached in time (10.0.0.5:443).',
    );
    expect(
      say('UND_ERR_CONNECT_TIMEOUT: Connect Timeout Error (attempted address: 10.255.255.1:80, timeout: 10000ms)')
        .sentence,
    ).toBe('The receiver could not be reached in time (10.255.255.1:80).');
    expect(say('ECONNRESET: read ECONNRESET')).toEqual({
      sentence: 'The receiver closed the connection before answering.',
      raw: 'ECONNRESET',
    });
    expect(say('UND_ERR_SOCKET: other side closed').sentence).toBe(
      'The receiver closed the connection before answering.',
    );
    expect(say('The receiver did not answer in time')).toEqual({
      sentence: 'The receiver did not answer within the destination’s timeout.',
      raw: 'timeout',
    });
  });

  it('tells TLS certificate failures apart', () => {
    const say = (message: string) => explainDeliveryError(null, message).sentence;
    expect(say('TLS: self-signed certificate')).toMatch(/^The receiver’s TLS certificate is self-signed/);
    expect(say('TLS: certificate has expired')).toBe('The receiver’s TLS certificate has expired.');
    expect(
      say("TLS: Hostname/IP does not match certificate's altnames: IP: 127.0.0.1 is not in the cert's list: "),
    ).toMatch(/not for this host name/);
    expect(say('TLS: unable to verify the first certificate')).toMatch(/could not be verified/);
    expect(explainDeliveryError(null, 'TLS: self-signed certificate').raw).toBe('self-signed certificate');
  });

  it('words HTTP answers by status, known ones with what to check', () => {
    expect(explainDeliveryError(503, 'HTTP 503')).toEqual({
      sentence: 'The receiver is unavailable for now (HTTP 503).',
      raw: null,
    });
    expect(explainDeliveryError(401, 'HTTP 401').sentence).toMatch(/credentials/);
    expect(explainDeliveryError(418, 'HTTP 418').sentence).toBe('The receiver refused the batch (HTTP 418).');
    expect(explainDeliveryError(599, 'HTTP 599').sentence).toBe('The receiver failed (HTTP 599).');
  });

  it('leaves the gateway’s own words as they are', () => {
    const own = 'Delivery stopped inside the gateway: SQLITE_BUSY: database is locked';
    expect(explainDeliveryError(null, own)).toEqual({ sentence: own, raw: null });
  });
});

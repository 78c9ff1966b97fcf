import type { IncomingHttpHeaders } from 'node:http';
import { describe, expect, it } from 'vitest';
import { Rng } from '../../../../electron/engine/random';
import { allowedAuthorities, hostHeaderAllowed, isLoopbackHost, originAllowed } from '../../../../electron/engine/loopback';
import { contentSecurityPolicy, cookieToken } from '../../../../electron/server/security';

const req = (headers: IncomingHttpHeaders) => ({ headers });
const SEED = 7_357;
const COUNT = 5_000;

/** Header text an attacker controls: random bytes, stray and broken percent-escapes, separators. */
function hostileHeader(rng: Rng): string {
  const pieces = [
    '%',
    '%Z',
    '%ZZ',
    '%E0%A4%A',
    '%C3%28',
    '%00',
    '%25',
    ';',
    '=',
    ' ',
    'envace_token',
    'envace_token=',
    '[',
    ']',
    ':',
    '\uFFFD',
    '\ud800',
    'http://',
    '127.0.0.1',
    'localhost',
  ];
  let s = '';
  for (let i = rng.int(0, 12); i > 0; i--) s += rng.next() < 0.6 ? rng.pick(pieces) : String.fromCharCode(rng.int(0, 255));
  return s;
}

describe('web mode security parsers', () => {
  it(`cookieToken, hostHeaderAllowed, originAllowed: ${COUNT.toLocaleString('en')} random headers with broken percent-escapes never throw`, () => {
    const rng = new Rng(SEED);
    const authorities = allowedAuthorities('127.0.0.1', 7357);
    for (let i = 0; i < COUNT; i++) {
      const headers: IncomingHttpHeaders = { cookie: hostileHeader(rng), host: hostileHeader(rng), origin: hostileHeader(rng) };
      const where = `seed ${SEED} #${i}: ${JSON.stringify(headers)}`;
      expect(() => cookieToken(req(headers)), where).not.toThrow();
      const token = cookieToken(req(headers));
      expect(token === null || typeof token === 'string', where).toBe(true);
      expect(typeof hostHeaderAllowed(req(headers), authorities), where).toBe('boolean');
      expect(typeof originAllowed(req(headers), authorities), where).toBe('boolean');
    }
  });

  it('a malformed envace_token cookie is no token (it used to throw URIError)', () => {
    expect(cookieToken(req({ cookie: 'envace_token=%ZZ' }))).toBeNull();
    expect(cookieToken(req({ cookie: 'other=1; envace_token=%E0%A4%A' }))).toBeNull();
    expect(cookieToken(req({ cookie: 'other=%ZZ; envace_token=a%2Bb==' }))).toBe('a+b==');
    expect(cookieToken(req({ cookie: 'envace_tokenx=1' }))).toBeNull();
    expect(cookieToken(req({}))).toBeNull();
  });

  it('headers of an unexpected type (arrays, missing) are refused, not thrown on', () => {
    const odd = { host: ['127.0.0.1:7357'], origin: ['http://127.0.0.1:7357'], cookie: ['envace_token=x'] } as unknown as IncomingHttpHeaders;
    const authorities = allowedAuthorities('127.0.0.1', 7357);
    expect(hostHeaderAllowed(req(odd), authorities)).toBe(false);
    expect(originAllowed(req(odd), authorities)).toBe(false);
    expect(cookieToken(req(odd))).toBeNull();
    expect(hostHeaderAllowed(req({}), authorities)).toBe(false);
  });

  it('the bound address is allowed beside the loopback names, in Host, Origin and the CSP', () => {
    const authorities = allowedAuthorities('127.0.0.2', 8000);
    expect(authorities).toEqual(['127.0.0.1:8000', 'localhost:8000', '[::1]:8000', '127.0.0.2:8000']);
    expect(hostHeaderAllowed(req({ host: '127.0.0.2:8000' }), authorities)).toBe(true);
    expect(hostHeaderAllowed(req({ host: '127.0.0.2:8001' }), authorities)).toBe(false);
    expect(hostHeaderAllowed(req({ host: 'evil.example:8000' }), authorities)).toBe(false);
    expect(originAllowed(req({ origin: 'http://127.0.0.2:8000' }), authorities)).toBe(true);
    expect(originAllowed(req({ origin: 'http://evil.example' }), authorities)).toBe(false);
    expect(contentSecurityPolicy(authorities)).toContain(
      "connect-src 'self' ws://127.0.0.1:8000 ws://localhost:8000 ws://[::1]:8000 ws://127.0.0.2:8000",
    );
    expect(allowedAuthorities('::1', 80)).toEqual(['127.0.0.1:80', 'localhost:80', '[::1]:80']);
  });

  it('loopback means 127.0.0.0/8, ::1 and localhost, with valid octets', () => {
    for (const host of ['127.0.0.1', '127.0.0.2', '127.255.255.255', '::1', 'localhost']) expect(isLoopbackHost(host), host).toBe(true);
    for (const host of ['0.0.0.0', '127.0.0.256', '127.999.0.1', '128.0.0.1', '::', '192.168.1.10', '127.0.0.1.evil', ' 127.0.0.1'])
      expect(isLoopbackHost(host), host).toBe(false);
  });
});

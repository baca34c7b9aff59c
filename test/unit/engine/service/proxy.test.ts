import { describe, expect, it } from 'vitest';
import { noProxyCovers, proxyFromEnvironment, proxyFromPacResult, splitProxyUrl } from '../../../../electron/engine/service/proxy.js';

describe('NO_PROXY, as curl reads it', () => {
  const cases: [list: string, host: string, port: number, covered: boolean][] = [
    ['example.com', 'example.com', 443, true],
    ['example.com', 'www.example.com', 443, true], // a name covers the names below it
    ['example.com', 'notexample.com', 443, false], // ... at a dot only
    ['.example.com', 'example.com', 443, true], // a leading dot is dropped, as curl does
    ['.example.com', 'a.b.example.com', 443, true],
    ['*.example.com', 'www.example.com', 443, true], // not curl's, read as ".example.com"
    ['EXAMPLE.com', 'www.Example.COM', 443, true],
    ['example.com.', 'example.com', 443, true],
    ['*', 'anything.at.all', 80, true],
    ['a.org, example.com  b.org', 'x.example.com', 443, true], // commas and spaces
    ['example.com:8443', 'example.com', 8443, true],
    ['example.com:8443', 'example.com', 443, false],
    ['10.1.2.3', '10.1.2.3', 80, true],
    ['10.1.2.3', '10.1.2.30', 80, false], // addresses are not suffixes
    ['2.3', '10.1.2.3', 80, false],
    ['10.0.0.0/8', '10.200.1.1', 80, true],
    ['10.0.0.0/8', '11.0.0.1', 80, false],
    ['192.168.0.0/16', '192.168.77.5', 80, true],
    ['fd00::/8', '[fd12::1]', 80, true],
    ['::1', '[::1]', 80, true],
    ['[::1]:8080', '[::1]', 8080, true],
    ['10.0.0.0/8', 'ten.example', 80, false], // no name lookup, as curl
    ['example.com', '10.0.0.1', 80, false],
    ['', 'example.com', 80, false],
  ];
  for (const [list, host, port, covered] of cases) {
    it(`"${list}" ${covered ? 'covers' : 'does not cover'} ${host}:${port}`, () => {
      expect(noProxyCovers(list, host, port)).toBe(covered);
    });
  }
});

describe('the proxy from the environment', () => {
  it('takes HTTPS_PROXY for https and HTTP_PROXY for http, in either case, lower case first', () => {
    expect(proxyFromEnvironment('https://svc.example/api', { HTTPS_PROXY: 'http://p:3128', HTTP_PROXY: 'http://q:3128' })?.url).toBe('http://p:3128');
    expect(proxyFromEnvironment('http://svc.example/api', { HTTPS_PROXY: 'http://p:3128', http_proxy: 'http://q:3128' })?.url).toBe('http://q:3128');
    expect(proxyFromEnvironment('https://svc.example', { https_proxy: 'http://low:1', HTTPS_PROXY: 'http://up:2' })?.url).toBe('http://low:1');
    expect(proxyFromEnvironment('https://svc.example', { ALL_PROXY: 'p:8080' })?.url).toBe('http://p:8080');
    expect(proxyFromEnvironment('https://svc.example', {})).toBeNull();
  });

  it('goes direct where NO_PROXY says, and to this computer', () => {
    const env = { HTTPS_PROXY: 'http://p:3128', no_proxy: '.corp.example,10.0.0.0/8' };
    expect(proxyFromEnvironment('https://svc.corp.example', env)).toBeNull();
    expect(proxyFromEnvironment('https://10.2.3.4:8443', env)).toBeNull();
    expect(proxyFromEnvironment('https://svc.example', env)?.url).toBe('http://p:3128');
    expect(proxyFromEnvironment('https://127.0.0.1:8080', env)).toBeNull();
    expect(proxyFromEnvironment('https://localhost:8080', env)).toBeNull();
  });

  it('takes the credentials out of the address', () => {
    const r = proxyFromEnvironment('https://svc.example', { HTTPS_PROXY: 'http://ann%40corp:p%3Ass@p.corp:3128' });
    expect(r).toEqual({ url: 'http://p.corp:3128', credentials: { user: 'ann@corp', password: 'p:ss' } });
  });

  it('refuses what it cannot use, naming the variable', () => {
    expect(() => proxyFromEnvironment('https://svc.example', { ALL_PROXY: 'socks5://s:1080' })).toThrow(/ALL_PROXY is a SOCKS proxy/);
    expect(() => proxyFromEnvironment('https://svc.example', { https_proxy: 'ftp://p:21' })).toThrow(/HTTPS_PROXY must be an http/);
  });
});

describe('a proxy as typed, and the system answer', () => {
  it('defaults the scheme and keeps no credentials in the URL', () => {
    expect(splitProxyUrl('proxy.corp:3128')).toEqual({ url: 'http://proxy.corp:3128' });
    expect(splitProxyUrl('https://u:pw@proxy.corp:8443/')).toEqual({ url: 'https://proxy.corp:8443', credentials: { user: 'u', password: 'pw' } });
    expect(() => splitProxyUrl('http://')).toThrow(/not an address/);
  });

  it('reads a PAC answer: the first entry, DIRECT as none', () => {
    expect(proxyFromPacResult('DIRECT')).toBeNull();
    expect(proxyFromPacResult('')).toBeNull();
    expect(proxyFromPacResult('PROXY proxy.corp:8080; DIRECT')).toEqual({ url: 'http://proxy.corp:8080' });
    expect(proxyFromPacResult('HTTPS secure.corp:443')).toEqual({ url: 'https://secure.corp:443' });
    expect(() => proxyFromPacResult('SOCKS5 s.corp:1080')).toThrow(/cannot use/);
  });
});

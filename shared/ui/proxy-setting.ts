/**
 * The proxy choice of a connection (issue 27, section 2), as connection.json keeps it and the
 * sign-in form offers it: no proxy, the environment's (HTTPS_PROXY and the rest), the system's
 * (the desktop app asks the OS, PAC included), or a given address. Never credentials: those are
 * kept with the token.
 */
export type ProxyMode = 'none' | 'environment' | 'system' | 'url';

export interface ProxyChoice {
  mode: ProxyMode;
  /** For mode 'url': `http(s)://host:port`, without credentials. */
  url?: string;
}

/** The choice in a few words, for "signed in" lines and the form's summary. */
export function proxyChoiceWords(c: ProxyChoice): string {
  switch (c.mode) {
    case 'none':
      return 'no proxy';
    case 'environment':
      return "the environment's proxy (HTTPS_PROXY, HTTP_PROXY, NO_PROXY)";
    case 'system':
      return "the system's proxy";
    case 'url':
      return `the proxy ${c.url ?? ''}`.trim();
  }
}

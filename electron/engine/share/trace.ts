/**
 * An opt-in trace of the share protocol's timing decisions (looks, staleness, takeovers, lapses),
 * one line each on stderr: DOCSYNC_SHARE_TRACE=1. For reading a multi-agent test's run after the
 * fact; nothing in it is needed for the protocol, and it carries no token and no file content.
 */
const on = process.env.DOCSYNC_SHARE_TRACE === '1';

export function shareTrace(agent: string, what: () => string): void {
  if (on) process.stderr.write(`share-trace ${new Date().toISOString()} ${agent}: ${what()}\n`);
}

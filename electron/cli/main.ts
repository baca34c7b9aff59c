#!/usr/bin/env node
import { UsageError } from './args.js';
import { SANDBOX_HELP, sandboxCommand } from './commands/sandbox.js';

const HELP = `docsync <command> [options]

Commands:
  sandbox    run the local sandbox service (see: docsync sandbox --help)
  help       show this help`;

const COMMANDS: Record<string, { help: string; run: (argv: string[]) => Promise<void> }> = {
  sandbox: { help: SANDBOX_HELP, run: sandboxCommand },
};

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === 'help' || name === '--help' || name === '-h') {
    console.log(HELP);
    return 0;
  }
  const cmd = COMMANDS[name];
  if (!cmd) throw new UsageError(`unknown command "${name}"; commands: ${Object.keys(COMMANDS).join(', ')}`);
  if (rest.includes('--help') || rest.includes('-h')) {
    console.log(cmd.help);
    return 0;
  }
  await cmd.run(rest);
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    if (err instanceof UsageError) {
      console.error(`docsync: ${err.message}`);
      process.exit(2);
    }
    console.error(`docsync: ${(err as Error).message ?? String(err)}`);
    if (process.env.DOCSYNC_DEBUG) console.error(err);
    process.exit(1);
  },
);

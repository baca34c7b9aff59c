#!/usr/bin/env node
import { UsageError } from './args.js';
import { inCliWords } from './words.js';
import { shown } from '../../shared/shown.js';
import { privateByDefault } from '../engine/config/private-files.js';

// Before anything is created: what DocSync writes is its owner's alone (issue 26).
privateByDefault();
const HELP = `docsync <command> [options]   (docsync <command> --help for its options)

Commands:
  serve      run the engine on every hot folder (the built-in sandbox when no service is configured)
  login      store a service URL and token (token read from standard input)
  logout     forget them
  folders    add, list or remove hot folders
  upload     upload files as one batch and run them (--wait to follow the run)
  status     files per state and active runs
  files      files seen (--state S)
  runs       runs
  results    stored results of a run
  search     full-text search over stored results
  export     write results as CSV (--wide: a row per document) or JSON, of a run or a folder/date range
  retry      upload a failed file again
  doctor     walk the way to the service step by step and say what fails
  sandbox    run the local sandbox service
  help       show this help
Listing commands take --json. Environment: DOCSYNC_HOME (data folder), DOCSYNC_URL, DOCSYNC_TOKEN,
DOCSYNC_CONTEXT, DOCSYNC_NAMESPACE (override the saved connection), DOCSYNC_DEBUG (stack traces).`;

type Run = (argv: string[]) => Promise<number | void> | number | void;
interface Command {
  help: string;
  run: Run;
}

// Loaded on demand: each command pays only for what it uses (the engine and the sandbox are heavy).
const COMMANDS: Record<string, () => Promise<Command>> = {
  serve: async () => import('./commands/serve.js').then((m) => ({ help: m.SERVE_HELP, run: m.serveCommand })),
  login: async () => import('./commands/login.js').then((m) => ({ help: m.LOGIN_HELP, run: m.loginCommand })),
  logout: async () => import('./commands/login.js').then((m) => ({ help: m.LOGOUT_HELP, run: m.logoutCommand })),
  folders: async () => import('./commands/folders.js').then((m) => ({ help: m.FOLDERS_HELP, run: m.foldersCommand })),
  upload: async () => import('./commands/upload.js').then((m) => ({ help: m.UPLOAD_HELP, run: m.uploadCommand })),
  status: async () => import('./commands/listings.js').then((m) => ({ help: m.STATUS_HELP, run: m.statusCommand })),
  files: async () => import('./commands/listings.js').then((m) => ({ help: m.FILES_HELP, run: m.filesCommand })),
  runs: async () => import('./commands/listings.js').then((m) => ({ help: m.RUNS_HELP, run: m.runsCommand })),
  results: async () => import('./commands/results.js').then((m) => ({ help: m.RESULTS_HELP, run: m.resultsCommand })),
  search: async () => import('./commands/results.js').then((m) => ({ help: m.SEARCH_HELP, run: m.searchCommand })),
  export: async () => import('./commands/results.js').then((m) => ({ help: m.EXPORT_HELP, run: m.exportCommand })),
  retry: async () => import('./commands/upload.js').then((m) => ({ help: m.RETRY_HELP, run: m.retryCommand })),
  doctor: async () => import('./commands/doctor.js').then((m) => ({ help: m.DOCTOR_HELP, run: m.doctorCommand })),
  sandbox: async () => import('./commands/sandbox.js').then((m) => ({ help: m.SANDBOX_HELP, run: m.sandboxCommand })),
};

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === 'help' || name === '--help' || name === '-h') {
    console.log(HELP);
    return 0;
  }
  const load = COMMANDS[name];
  if (!load) throw new UsageError(`unknown command "${name}"; commands: ${Object.keys(COMMANDS).join(', ')}`);
  const cmd = await load();
  if (rest.includes('--help') || rest.includes('-h')) {
    console.log(cmd.help);
    return 0;
  }
  return (await cmd.run(rest)) ?? 0;
}

/**
 * Exits once everything printed has been handed to the OS. Writes to a pipe are asynchronous: a
 * process.exit() straight after printing cut `docsync files --json | cat` at 64 KiB.
 */
function exitWhenFlushed(code: number): void {
  process.exitCode = code;
  let pending = 2;
  const done = (): void => {
    if (--pending === 0) process.exit(code);
  };
  // A write's callback runs after every earlier write on that stream has been flushed.
  for (const stream of [process.stdout, process.stderr]) stream.write('', done);
}

// A reader that stops early (`docsync files | head -1`) closes the pipe: that ends the command, quietly.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw err;
});

main(process.argv.slice(2)).then(exitWhenFlushed, (err: unknown) => {
  // One line, always: messages from below may carry newlines.
  // A service error no command worded itself still reads in the shared words (the detail: DOCSYNC_DEBUG).
  const line = shown(inCliWords(err).message.replace(/\s*\n\s*/g, ' ').trim());
  console.error(`docsync: ${line}`);
  if (!(err instanceof UsageError) && process.env.DOCSYNC_DEBUG) console.error(err);
  exitWhenFlushed(err instanceof UsageError ? 2 : 1);
});

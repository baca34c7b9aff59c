// The user's words for problems and outcomes (shared/ui/messages.ts), over messages the UI really showed.
import { describe, expect, it } from 'vitest';
import { fieldFailures, fileNamed, fileProblem, offlineReason, readReason, retryLater, runOutcome, serviceProblem } from '../../../shared/ui/messages.js';

const FIELDS = ['invoice_number', 'invoice_date', 'due_date', 'total_amount', 'currency', 'Vendor_Name', '_1st_Line_Item'];
const PNG = 'unsupported file: not a PDF and not UTF-8 text';

describe('a failed file: one readable sentence, the detail kept behind it', () => {
  it('summarises a file whose every field failed for one reason (a PNG)', () => {
    const text = fieldFailures(FIELDS.map((name) => ({ name, errorMsg: PNG })), 7)!;
    const p = fileProblem(text);
    expect(p.summary).toBe('The service could not read this file: not a PDF or text (7 of 7 fields failed)');
    expect(p.short).toBe('Could not read: not a PDF or text (7 of 7 fields)');
    expect(p.detail?.split('\n')).toEqual(FIELDS.map((n) => `${n}: ${PNG}`));
  });

  it('says which share failed when only some fields did', () => {
    const text = fieldFailures([{ name: 'due_date', errorMsg: 'no value found' }], 7)!;
    expect(fileProblem(text)).toEqual({
      summary: 'The service could not extract every field: no value found (1 of 7 fields failed)', short: '1 of 7 fields failed', detail: 'due_date: no value found',
    });
    expect(fieldFailures([], 7)).toBeNull();
  });

  it.each([
    [PNG, 'not a PDF or text'],
    [`${PNG} (binary data)`, 'not a PDF or text'],
    ['no text layer: no page has extractable text', 'a scanned PDF without text'],
    ['PDF is encrypted and no matching password was given in runtime_config.svc.pdf.passwords', 'a password-protected PDF, and no password was given'],
    ['PDF is encrypted and the password given for "a" in runtime_config.svc.pdf.passwords is incorrect', 'a password-protected PDF, and its password is wrong'],
    ['file is not a readable PDF: page 1: Invalid PDF structure', 'a damaged PDF'],
    ['file too large: 60000000 bytes, over the limit of 52428800 bytes', 'too large'],
    ['empty file: 0 bytes', 'an empty file'],
    ['no text: the file holds only whitespace', 'no text in it'],
    ['something new from the service', 'something new from the service'],
  ])('reads the service\'s "%s" as "%s"', (msg, words) => {
    expect(readReason(msg)).toBe(words);
  });

  it('summarises problems stored in the older words (heading plus one line per field)', () => {
    const old = `the service could not extract every field:\n${FIELDS.map((n) => `${n}: ${PNG}`).join('\n')}`;
    expect(fileProblem(old)).toEqual({
      summary: 'The service could not read this file: not a PDF or text (7 fields failed)', short: 'Could not read: not a PDF or text (7 fields)', detail: old.split('\n').slice(1).join('\n'),
    });
  });

  it('keeps a one-line problem as one sentence', () => {
    const perm = 'DocSync cannot read this file: permission denied';
    expect(fileProblem(perm)).toEqual({ summary: perm, short: perm, detail: null });
    expect(fileProblem('the run failed: OCR crashed')).toMatchObject({ summary: 'The run failed: OCR crashed', detail: null });
    expect(fileProblem('The upload failed: the service had a problem (error 500)\nuploadFile failed (http 500): boom')).toEqual({
      summary: 'The upload failed: the service had a problem (error 500)', short: 'The upload failed: the service had a problem (error 500)', detail: 'uploadFile failed (http 500): boom',
    });
  });
});

describe('the service in the user\'s words, never operation names', () => {
  const refused = { kind: 'network', code: 'ECONNREFUSED', message: 'connect ECONNREFUSED 127.0.0.1:4123' };
  it.each([
    [{ kind: 'http', status: 401, message: 'unknown token' }, 'the service did not accept the sign-in (the token may be wrong or expired): sign in again'],
    [{ kind: 'http', status: 403, message: 'quota exceeded' }, 'the service refused access ("quota exceeded"); the account\'s quota or trial may be used up'],
    [{ kind: 'http', status: 403, message: 'HTTP 403 Forbidden' }, 'the service refused access; the account\'s quota or trial may be used up'],
    [refused, 'the service cannot be reached: nothing answers at its address'],
    [{ kind: 'network', code: 'ENOTFOUND', message: 'getaddrinfo ENOTFOUND x' }, 'the service cannot be reached: its address is not known'],
    [{ kind: 'timeout', message: 'Timeout awaiting response for 30000ms' }, 'the service cannot be reached: it did not answer in time'],
    [{ kind: 'http', status: 503, message: 'unavailable' }, 'the service had a problem on its side'],
    [{ kind: 'http', status: 429, message: 'slow down' }, 'the service is busy'],
    [{ kind: 'http', status: 400, message: 'unknown deployment "x"' }, 'the service refused the request: unknown deployment "x"'],
    [{ kind: 'http', status: 400, message: 'HTTP 400 Bad Request' }, 'the service refused the request: it gave no reason'],
    [{ kind: 'bad-response', message: 'listBatches: body is not JSON' }, 'the service sent an answer DocSync does not understand'],
  ])('%j', (e, words) => {
    const text = serviceProblem(e);
    expect(text).toBe(words);
    expect(text).not.toMatch(/listBatches|ECONN|ENOTFOUND|http \d|\b(401|403|429|503)\b/i);
  });

  it('one wording for app and command line: the command line names the address and points at its commands', () => {
    const cli = {
      service: 'http://127.0.0.1:4123', signIn: 'give a new token with "docsync login --url URL"', access: 'ask the admin', reach: 'check the address',
    };
    expect(serviceProblem({ kind: 'http', status: 401, message: 'unknown token' }, cli))
      .toBe('http://127.0.0.1:4123 did not accept the sign-in (the token may be wrong or expired): give a new token with "docsync login --url URL"');
    expect(serviceProblem(refused, cli)).toBe('http://127.0.0.1:4123 cannot be reached: nothing answers at its address; check the address');
    expect(serviceProblem({ kind: 'http', status: 403, message: '' }, cli)).toBe('http://127.0.0.1:4123 refused access; the account\'s quota or trial may be used up: ask the admin');
    // What has no hint reads the same in both.
    expect(serviceProblem({ kind: 'http', status: 502, message: 'x' }, cli)).toBe('http://127.0.0.1:4123 had a problem on its side');
  });

  it('says why the service is offline, as the end of "HOST cannot be reached: ..."', () => {
    expect(offlineReason(refused)).toBe('nothing answers at its address');
    expect(offlineReason({ kind: 'http', status: 502, message: 'bad gateway' })).toBe('it answers with errors');
  });

  it('says what happened and what DocSync will do about a batch it tries again', () => {
    expect(retryLater(serviceProblem(refused), 8000, 3)).toBe('The service cannot be reached: nothing answers at its address. DocSync will try again to upload 3 files in 8 s.');
    expect(retryLater('the service is busy', 400, 1)).toBe('The service is busy. DocSync will try again to upload 1 file in 1 s.');
    expect(retryLater('the service is busy', 2000, 0)).toBe('The service is busy. DocSync will try again in 2 s.');
  });
});

describe('a run\'s outcome: partial failure is not success', () => {
  it.each([
    [{ files: 6, done: 4, failed: 2 }, '4 of 6 done, 2 failed'],
    [{ files: 6, done: 6, failed: 0 }, '6 files done'],
    [{ files: 1, done: 1, failed: 0 }, '1 file done'],
    [{ files: 3, done: 1, failed: 0 }, '1 of 3 done, 2 not finished'],
    [{ files: 0, done: 0, failed: 0 }, 'no files'],
  ])('%j', (c, words) => expect(runOutcome(c)).toBe(words));
});

describe('a file by its name, never its id', () => {
  it('its name in quotes; its folder only when asked (another file has the same name)', () => {
    expect(fileNamed('/scans/march/inv-7.pdf')).toBe('"inv-7.pdf"');
    expect(fileNamed('/scans/march/inv-7.pdf', null, true)).toBe('"inv-7.pdf" in /scans/march');
    expect(fileNamed('C:\\Scans\\inv-7.pdf', null, true)).toBe('"inv-7.pdf" in C:\\Scans');
    expect(fileNamed('/scans/x', 'Rechnung März.pdf')).toBe('"Rechnung März.pdf"');
  });
});

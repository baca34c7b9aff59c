/**
 * The only module that touches ipcMain (eslint forbids it elsewhere): one handler per request
 * channel of the contract, each checking that the sender is the app's own renderer before the
 * core checks the argument and runs the handler; engine events are pushed to the app's windows.
 */
import { BrowserWindow, ipcMain, type IpcMainInvokeEvent } from 'electron';
import { EVENT_CHANNELS, REQUEST_CHANNELS, type EventChannel, type Events } from '../../shared/ui/contract.js';
import { errorReply } from '../../shared/ui/errors.js';
import { ipcEventChannel, ipcRequestChannel, type IpcReply } from '../../shared/ui/ipc.js';
import type { CorePort } from './core-port.js';
import { log, oneLine } from './log.js';
import { isTrustedSender, redactUrl, type RendererOrigin } from './trust.js';

/** The sending frame's URL and whether it is a top frame; null once the frame is gone (reading a disposed frame throws). */
function sender(e: IpcMainInvokeEvent): { url: string; top: boolean } | null {
  try {
    const frame = e.senderFrame;
    return frame ? { url: frame.url, top: frame.parent === null } : null;
  } catch {
    return null;
  }
}

/** Registers the handlers and event forwarding; returns a function that removes them again. */
export function registerIpc(core: CorePort, origin: RendererOrigin): () => void {
  for (const channel of REQUEST_CHANNELS) {
    ipcMain.handle(ipcRequestChannel(channel), async (e, raw: unknown): Promise<IpcReply<unknown>> => {
      const from = sender(e);
      if (!from || !isTrustedSender(from.url, from.top, origin)) {
        log('warn', `refused IPC "${channel}" from ${from ? `${from.top ? '' : 'a subframe at '}${redactUrl(from.url)}` : 'a closed frame'}`);
        return { ok: false, error: 'refused: this page may not use DocSync' };
      }
      try {
        return { ok: true, result: await core.call(channel, raw) };
      } catch (err) {
        return errorReply(oneLine(err), err);
      }
    });
  }

  const forward = <E extends EventChannel>(event: E) => (payload: Events[E]): void => {
    for (const win of BrowserWindow.getAllWindows()) {
      const wc = win.webContents;
      // Only pages that could call us hear from us (a crashed or navigated page does not).
      if (win.isDestroyed() || wc.isDestroyed() || wc.isCrashed()) continue;
      if (!isTrustedSender(wc.getURL(), true, origin)) continue;
      wc.send(ipcEventChannel(event), payload);
    }
  };
  const unsubscribe = EVENT_CHANNELS.map((event) => {
    const fn = forward(event);
    core.events.on(event, fn);
    return () => {
      core.events.off(event, fn);
    };
  });

  return () => {
    for (const channel of REQUEST_CHANNELS) ipcMain.removeHandler(ipcRequestChannel(channel));
    for (const off of unsubscribe) off();
  };
}

/**
 * The renderer's only door to the engine: `window.docsync`, one method per request channel and
 * one subscribe function per event channel of the contract (shared/ui/contract.ts). Nothing
 * generic (no ipcRenderer, no send/invoke by name) crosses the bridge, so a compromised page can
 * only ask what the contract allows, and the main process checks every argument again.
 * Built as CommonJS: sandboxed preloads cannot be ES modules.
 */
import { contextBridge, ipcRenderer, webUtils, type IpcRendererEvent } from 'electron';
import { EVENT_CHANNELS, REQUEST_CHANNELS, type PreloadApi } from '../../shared/ui/contract.js';
import { ipcEventChannel, ipcRequestChannel, type IpcReply } from '../../shared/ui/ipc.js';

const requests = Object.fromEntries(
  REQUEST_CHANNELS.map((channel) => {
    const name = ipcRequestChannel(channel);
    // The envelope as the main process sent it (plain data: it crosses the contextBridge whole).
    const call = async (args: unknown): Promise<IpcReply<unknown>> => (await ipcRenderer.invoke(name, args)) as IpcReply<unknown>;
    return [channel, call];
  }),
) as unknown as PreloadApi['requests'];

const events = Object.fromEntries(
  EVENT_CHANNELS.map((event) => {
    const name = ipcEventChannel(event);
    const subscribe = (fn: (payload: unknown) => void): (() => void) => {
      // Wrapped so the page never sees the IpcRendererEvent (it exposes sender and ports).
      const listener = (_e: IpcRendererEvent, payload: unknown): void => fn(payload);
      ipcRenderer.on(name, listener);
      return () => {
        ipcRenderer.removeListener(name, listener);
      };
    };
    return [event, subscribe];
  }),
) as unknown as PreloadApi['events'];

const pathForFile = (file: unknown): string => {
  try {
    // '' for a File that is not on disk (made in the page); the renderer then stages its bytes.
    return webUtils.getPathForFile(file as File);
  } catch {
    return '';
  }
};

const api: PreloadApi = { requests, events, pathForFile };
contextBridge.exposeInMainWorld('docsync', api);

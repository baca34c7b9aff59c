// One method per contract channel will be exposed here (desktop issue); nothing generic, ever.
import { contextBridge } from 'electron';

contextBridge.exposeInMainWorld('docsync', { version: 1 });

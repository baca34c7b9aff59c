/** The Share the engine tests use: the real protocol over the service's files (what the engine uses by default). */
import { joinServiceShare, type ShareFactory } from '../../electron/engine/pipeline/shared-folder.js';

export const shareFactory = (): ShareFactory => joinServiceShare;

/**
 * The tray icon: a coloured dot for the state (idle, syncing, paused, errors, offline), the
 * status line and pause/resume in its menu. Wording and icons come from pure modules.
 */
import { Menu, Tray, nativeImage, type NativeImage } from 'electron';
import type { AppInfo, ConnectionState, StatusView } from '../../shared/ui/views.js';
import type { CorePort } from './core-port.js';
import { trayIconPng } from './icon-png.js';
import { log, oneLine } from './log.js';
import { trayLabel, type TrayLabel, type TrayState } from './tray-label.js';

export interface TrayActions {
  open(): void;
  quit(): void;
}

const icons = new Map<TrayState, NativeImage>();
function icon(state: TrayState): NativeImage {
  let img = icons.get(state);
  if (!img) {
    img = nativeImage.createEmpty();
    img.addRepresentation({ scaleFactor: 1, buffer: trayIconPng(state, 16) });
    img.addRepresentation({ scaleFactor: 2, buffer: trayIconPng(state, 32) });
    icons.set(state, img);
  }
  return img;
}

export class StatusTray {
  readonly #tray: Tray;
  #status: StatusView | null = null;
  #connection: ConnectionState | null = null;
  #shown: TrayLabel | null = null;
  readonly #off: (() => void)[] = [];

  constructor(
    private readonly core: CorePort,
    private readonly actions: TrayActions,
  ) {
    this.#tray = new Tray(icon('starting'));
    // Windows and most Linux panels: a left click opens the window; the menu is on right click.
    this.#tray.on('click', () => actions.open());
    const onStatus = (s: StatusView): void => this.update(s, this.#connection);
    const onConnection = (c: ConnectionState): void => this.update(this.#status, c);
    const onApp = (a: AppInfo): void => this.update(this.#status, a.connection);
    core.events.on('status', onStatus);
    core.events.on('connection', onConnection);
    core.events.on('app', onApp);
    this.#off.push(() => core.events.off('status', onStatus), () => core.events.off('connection', onConnection), () => core.events.off('app', onApp));
    this.update(core.status(), core.connection);
  }

  private update(status: StatusView | null, connection: ConnectionState | null): void {
    this.#status = status;
    this.#connection = connection;
    const next = trayLabel(status, connection);
    const prev = this.#shown;
    if (prev && prev.label === next.label && prev.state === next.state && prev.toggle === next.toggle) return;
    this.#shown = next;
    if (!prev || prev.state !== next.state) this.#tray.setImage(icon(next.state));
    this.#tray.setToolTip(next.tooltip);
    this.#tray.setContextMenu(
      Menu.buildFromTemplate([
        { label: next.label, enabled: false },
        { type: 'separator' },
        { label: 'Open DocSync', click: () => this.actions.open() },
        { label: next.toggle, click: () => this.toggle(next.toggle === 'Resume syncing') },
        { type: 'separator' },
        { label: 'Quit DocSync', click: () => this.actions.quit() },
      ]),
    );
  }

  private toggle(resume: boolean): void {
    this.core.call(resume ? 'engine.resume' : 'engine.pause', {}).then(
      (s) => this.update(s as StatusView, this.#connection),
      (err: unknown) => log('error', `${resume ? 'resume' : 'pause'} failed: ${oneLine(err)}`),
    );
  }

  destroy(): void {
    for (const off of this.#off) off();
    this.#tray.destroy();
  }
}

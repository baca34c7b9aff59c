/** Which screen is shown, and what it was opened on. One instance for the app. */
export type Screen = 'activity' | 'folders' | 'runs' | 'results' | 'connection';

/** Each screen's name, in the sidebar's order: the sidebar shows it and the page title starts with it. */
export const SCREEN_LABELS: Record<Screen, string> = {
  activity: 'Activity',
  folders: 'Hot folders',
  runs: 'Runs',
  results: 'Results',
  connection: 'Connection',
};

export interface ResultsTarget {
  runId?: number;
  fileId?: number;
  documentId?: number;
  fieldId?: number;
}

class Nav {
  screen = $state<Screen>('activity');
  /** What the Results screen should open (a run, a file, a search hit). */
  results = $state.raw<ResultsTarget>({});

  /** True when the Hot folders screen should open on a new folder's form (a first step elsewhere asked for it). */
  adding = $state(false);

  /** Opens the Hot folders screen on the form for a new folder. */
  addFolder(): void {
    this.adding = true;
    this.screen = 'folders';
  }

  go(screen: Screen): void {
    this.screen = screen;
  }

  openResults(target: ResultsTarget): void {
    this.results = target;
    this.screen = 'results';
  }
}

export const nav = new Nav();

/** Which screen is shown, and what it was opened on. One instance for the app. */
export type Screen = 'activity' | 'folders' | 'runs' | 'results' | 'connection';

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

  go(screen: Screen): void {
    this.screen = screen;
  }

  openResults(target: ResultsTarget): void {
    this.results = target;
    this.screen = 'results';
  }
}

export const nav = new Nav();

/**
 * Many agents, one share (issue 15): the interface between the share protocol (protocol.ts,
 * records on the service's filesystem) and the engine. The record layout and the rules are in
 * README.md beside this file; how the engine uses them in electron/engine/README.md, "Shared folders".
 */

import type { FleetAgentView } from '../../../shared/ui/views.js';
import { AttemptRefused } from '../service/errors.js';

/** One agent of a share as this agent sees it (from its heartbeat records): the same shape the UI shows. */
export type FleetAgent = FleetAgentView;

/**
 * Thrown by an act's guard (Share.actGuard) right before a request would be sent: this agent may no
 * longer hold what the act is for. Nothing was sent; the caller re-reads (stillMine) and tries again.
 */
export class ShareFenced extends AttemptRefused {
  constructor() {
    // No closing period: the engine's notices go on after it ("... DocSync will try again ...").
    super('This agent was away from the share for longer than its lease allows, so it checks again whether the work is still its own');
    this.name = 'ShareFenced';
  }
}

/** What a claim attempt found. */
export type ClaimOutcome =
  /** This agent holds the content now (generation `gen`). */
  | { kind: 'won'; gen: number }
  /** Another agent holds it and has not finished it: leave the file alone. */
  | { kind: 'held'; holderId: string; holderName: string }
  /** Some agent finished it already: skip, "processed by agent X" (or failed there, with its reason). */
  | { kind: 'finished'; holderId: string; holderName: string; outcome: 'done' | 'failed'; reason: string | null };

/** A file of a batch as the share records it; `rel` is the path relative to the shared folder (agents may mount it at different places). */
export interface ShareBatchFile {
  sha256: string;
  rel: string;
  safeName: string;
  size: number;
  mtimeMs: number;
  /** Uploaded whole to the service batch. */
  uploaded: boolean;
}

/** A batch of a shared folder as the share records it, overwritten by its holder as it goes. */
export interface ShareBatchRecord {
  /** The local batch name (unique): also the service batch's name and the run's `docsync:<name>` tag. */
  name: string;
  /** The plan (target and run settings) as stored with the local batch (JSON text). */
  plan: string;
  serviceBatchId: string | null;
  /** `mount_point/path_suffix` of the service batch. */
  servicePath: string | null;
  files: ShareBatchFile[];
  /** The service run id once started. */
  run: string | null;
}

/** Work this agent took over from an agent whose heartbeat went stale. */
export type Takeover =
  /** A content claimed but not yet in a batch: take it in afresh (the file at `rel`). */
  | { kind: 'content'; sha256: string; rel: string }
  /**
   * A batch: this agent now holds it and every content listed in `files`. Use it: files marked
   * uploaded are not sent again, a recorded or tagged run is followed, not started again. `dropped`
   * were in the batch but are held by another agent now (or finished): remove them from the service
   * batch before a run is started, after `stillMineBatch` said true (or give the batch up), never
   * run them here. The same poll may also bring `content` takeovers of members its creator had not
   * yet marked batched.
   */
  | { kind: 'batch'; record: ShareBatchRecord; dropped: ShareBatchFile[] };

/** What a look at the contents held elsewhere found. */
export interface ElsewhereNews {
  /** Contents finished by their holder: skip locally with the reason. */
  finished: { sha256: string; holderName: string; outcome: 'done' | 'failed'; reason: string | null }[];
  /** Work taken over by this agent just now. */
  takeovers: Takeover[];
  /** Contents whose holder changed (another agent took them over): for the UI's "handled by". */
  moved: { sha256: string; holderId: string; holderName: string }[];
}

/**
 * One agent's membership of one share. Every method that writes checks first that this agent's own
 * heartbeat is fresh (self-fencing): an agent that was paused longer than its lease re-reads before
 * it acts, and gives up what moved on.
 */
export interface Share {
  readonly agentId: string;
  readonly agentName: string;
  /** Starts heartbeats (and writes the first one before resolving). */
  start(): Promise<void>;
  /** Stops heartbeats; claims stay (another agent takes them over after the lease). */
  stop(): Promise<void>;
  /** Claims a content (before anything else is done with its file). */
  claim(sha256: string, rel: string, size: number): Promise<ClaimOutcome>;
  /** A batch of this agent's contents closed: records it (batch generation 1) and points each content's progress at it. */
  batched(record: ShareBatchRecord): Promise<void>;
  /** The batch moved on (service batch, uploads, run): overwrites its record. */
  updateBatch(record: ShareBatchRecord): Promise<void>;
  /** A content is finished: every agent skips it from now on. */
  finished(sha256: string, outcome: 'done' | 'failed', reason: string | null): Promise<void>;
  /** Gives up a content this agent holds without finishing it (its file vanished before upload): another agent may claim it again. */
  release(sha256: string): Promise<void>;
  /**
   * Re-reads before an irreversible step (upload, run start, archive or error move, delete): true
   * while this agent still holds the content (and its batch, when it is in one).
   */
  stillMine(sha256: string): Promise<boolean>;
  /** Same for a whole batch before its run is started: true while this agent holds the batch. */
  stillMineBatch(name: string): Promise<boolean>;
  /**
   * A guard for the requests of the irreversible step that follows: take it BEFORE the re-read
   * (stillMine, stillMineBatch) and run it right before each attempt of the step's requests
   * (`onAttempt`). It throws ShareFenced when this agent's lease ran out or it lapsed since it was
   * taken: the re-read may predate a takeover, so the step is given up and re-read again.
   */
  actGuard(): () => void;
  /** Wakes `listener` when another agent is newly seen stale: poll() now to take its work over. */
  onStale(listener: () => void): void;
  /** Contents this agent saw in its folder but another agent holds: looked at by poll(). */
  watch(sha256: string, rel: string): void;
  unwatch(sha256: string): void;
  /** Looks at heartbeats and the watched contents: what finished, what to take over. Called every heartbeat. */
  poll(): Promise<ElsewhereNews>;
  /** The agents of the share, as of the last heartbeat look. */
  fleet(): FleetAgent[];
  /** Calls made to the service so far, by kind (for the benchmark's calls per file). */
  calls(): Record<string, number>;
}

export type { ShareSettings } from '../../../shared/hot-folder.js';

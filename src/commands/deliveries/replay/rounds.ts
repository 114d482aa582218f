// The FAILED deliveries of `replay --all-failed`, round after round (cli.md, deliveries): the
// list holds at most 50 rows, so once a round's deliveries are replayed the list is asked for
// again, until it shows nothing this run has not replayed already, or --max is reached. Each
// delivery is handed out once per run: one that failed again is never replayed twice. The
// summary says only what the lists showed (cli.md, deliveries, "Evidence, not inference").
import { joinWords } from '../../../core/words.js';
import { DELIVERY_LIST_ROWS, isFullDeliveryList } from '../../../shared/api-limits.js';
import type { Delivery } from '../../../shared/schemas.js';

/** Why the rounds ended, for the summary. */
export type RoundsEnd =
  /** The last list held nothing new and was not full: nothing is left that this run has not replayed. */
  | { how: 'exhausted' }
  /** The last listing held nothing new, and `lists` came back full: older FAILED ones may sit behind them. */
  | { how: 'list-full'; lists: readonly string[] }
  | { how: 'max'; more: 'certain' | 'possible' }
  /** Listing again failed; `error` is what it threw. */
  | { how: 'list-failed'; error: unknown }
  /** The batch stopped taking items (key refused, Ctrl-C) before the rounds ended. */
  | { how: 'stopped' };

export interface RoundItem {
  id: string;
  /** 1, 2, … in the order handed out. */
  n: number;
  round: number;
}

export class FailedRounds {
  /** Rounds in which at least one delivery was handed out. */
  rounds = 0;
  end: RoundsEnd = { how: 'stopped' };
  private readonly seen = new Set<string>();
  /** The row each delivery was handed out from: its subscription and last attempt before the replay. */
  private readonly rows = new Map<string, Delivery>();
  /** The current round's deliveries not handed out yet: what a stopped run did not replay. */
  private left: string[] = [];

  constructor(
    private readonly first: readonly Delivery[],
    private readonly listAgain: () => Promise<Delivery[]>,
    private readonly max: number | undefined,
    private readonly signal: AbortSignal,
    /** Told when a new round begins, for the progress line. */
    private readonly onRound: (round: number, size: number) => void = () => undefined,
    /**
     * The lists of a listing that came back full (older FAILED deliveries may sit behind them),
     * named (`the FAILED list of wh_…`): by default `the FAILED list` when it holds the list's 50
     * rows; a filtered listing (--since, --until, --error) or one of several lists says so itself.
     */
    private readonly fullLists: (listing: readonly Delivery[]) => readonly string[] = (listing) =>
      isFullDeliveryList(listing.length) ? ['the FAILED list'] : [],
    /** What the listing was narrowed to (`matching --error "503"`), for the summary; undefined when not. */
    private readonly matching?: string | undefined,
  ) {}

  /** The row `id` was handed out from, if it was. */
  row(id: string): Delivery | undefined {
    return this.rows.get(id);
  }

  get handedOut(): number {
    return this.seen.size;
  }

  async *items(): AsyncGenerator<RoundItem> {
    let listing: readonly Delivery[] = this.first;
    for (;;) {
      const fresh = listing.filter((d) => !this.seen.has(d.id));
      if (fresh.length === 0) {
        const lists = this.fullLists(listing);
        this.end = lists.length > 0 ? { how: 'list-full', lists } : { how: 'exhausted' };
        return;
      }
      this.rounds += 1;
      this.onRound(this.rounds, fresh.length);
      this.left = fresh.map((d) => d.id);
      for (const [i, d] of fresh.entries()) {
        this.seen.add(d.id);
        this.rows.set(d.id, d);
        this.left = this.left.slice(1);
        yield { id: d.id, n: this.seen.size, round: this.rounds };
        if (this.max !== undefined && this.seen.size >= this.max) {
          // Whether any is left is known only from this list: the next one is not asked for.
          const left = i + 1 < fresh.length || this.fullLists(listing).length > 0;
          this.end = { how: 'max', more: left ? 'certain' : 'possible' };
          return;
        }
      }
      try {
        listing = await this.listAgain();
      } catch (error) {
        // Ctrl-C while listing is the batch's interruption, reported as such by the runner.
        if (this.signal.aborted) throw error;
        this.end = { how: 'list-failed', error };
        return;
      }
    }
  }

  /** Listed in the current round but not handed out: when the batch stopped early, these were not replayed. */
  notReplayed(): readonly string[] {
    return this.end.how === 'stopped' ? this.left : [];
  }

  /**
   * The part of the summary that says how the rounds went and whether more may remain;
   * undefined when the batch was stopped (the runner's reason and notReplayed() say it then).
   */
  describe(): string | undefined {
    const rounds = `${this.rounds} round${this.rounds === 1 ? '' : 's'}`;
    switch (this.end.how) {
      case 'exhausted':
        return `${rounds}; no FAILED delivery${this.matching === undefined ? '' : ` ${this.matching}`} is left that this run has not replayed`;
      case 'list-full': {
        // What the lists showed, and no more: none this run had not replayed. Older ones may
        // sit behind them, or not: a full list's order proves nothing.
        const lists = this.end.lists;
        const them = lists.length === 1 ? 'it' : 'them';
        return (
          `${rounds}; more may remain: ${joinWords(lists)} came back full (${DELIVERY_LIST_ROWS} rows, the most the API lists) ` +
          `and showed no FAILED delivery${this.matching === undefined ? '' : ` ${this.matching}`} that this run had not replayed; ` +
          `older ones may sit behind ${them}`
        );
      }
      case 'max':
        return `${rounds}; stopped at --max ${this.max ?? ''}: ${this.end.more === 'certain' ? 'more remain' : 'more may remain'}`;
      case 'list-failed':
        return `${rounds}; could not list FAILED deliveries again: more may remain`;
      case 'stopped':
        return undefined;
    }
  }
}

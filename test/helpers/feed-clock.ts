/**
 * A clock for an instance's change feed that the test holds: rows it has read stay fresh until the
 * test moves the clock past FEED_INTERVAL_MS, so "another instance sees it within the interval"
 * is tested without waiting the interval out, and "nothing is read again within the interval"
 * holds however slowly a busy machine runs the requests in between.
 */
import { FEED_INTERVAL_MS } from '../../src/storage/change-feed.js';
import type { TestApp } from './app.js';

export interface FeedClock {
  /** Moves the clock past one interval (or `ms`): the next use of a held row reads the feed first. */
  passInterval(ms?: number): void;
}

export function holdFeedClock(t: Pick<TestApp, 'parts'>): FeedClock {
  const feed = t.parts.storage.changes;
  let now = Date.now();
  feed.now = () => now;
  return {
    passInterval(ms = FEED_INTERVAL_MS) {
      now += ms;
    },
  };
}

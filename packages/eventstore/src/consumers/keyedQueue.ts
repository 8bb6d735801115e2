/**
 * Runs work for one key strictly one after another, and work for different keys freely in
 * parallel: a consumer's events of one stream stay in order while streams proceed side by side.
 */
export function createKeyedQueue(): (key: string, work: () => Promise<void>) => Promise<void> {
  // Per key, the tail of its chain; removed once the chain runs dry, so the map stays small.
  const tails = new Map<string, Promise<void>>();
  return (key, work) => {
    const previous = tails.get(key) ?? Promise.resolve();
    const tail = previous.catch(() => {}).then(work);
    tails.set(key, tail);
    const forget = () => void (tails.get(key) === tail && tails.delete(key));
    tail.then(forget, forget);
    return tail;
  };
}

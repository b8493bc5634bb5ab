/**
 * The client-neutral retry engine: {@link dev.retryagent.engine.RetryEngine} decides whether an attempt is
 * retried and after how long, and {@link dev.retryagent.engine.RetryLoop} and
 * {@link dev.retryagent.engine.AsyncRetryLoop} run attempts through a client's
 * {@link dev.retryagent.engine.Exchange} or {@link dev.retryagent.engine.AsyncExchange}.
 *
 * <p>Invariants: no client types and no threads of its own. Time ({@link dev.retryagent.engine.Clock}),
 * randomness ({@link dev.retryagent.engine.RandomSource}), waiting ({@link dev.retryagent.engine.Sleeper})
 * and delayed work ({@link dev.retryagent.engine.Scheduler}) are injected, so that tests never wait and are
 * repeatable. Decisions and facts are immutable values; the only shared state is the per-destination
 * budgets, counters and log windows, which are thread-safe.
 */
package dev.retryagent.engine;

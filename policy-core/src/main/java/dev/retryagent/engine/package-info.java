/**
 * The one retry engine, client-neutral and pure.
 *
 * <ul>
 *   <li>{@link dev.retryagent.engine.RetryEngine}: given a call's {@link dev.retryagent.engine.CallFacts} and how
 *       an attempt ended ({@link dev.retryagent.engine.Outcome}), a {@link dev.retryagent.engine.RetryDecision}:
 *       classify, then the reasons no retry is allowed, then attempts, Retry-After and deadline, the budget last.
 *       It looks a call's rule up once, when the adapter builds the facts
 *       ({@link dev.retryagent.engine.CallFacts#builder}), and answers every later question under that rule.</li>
 *   <li>{@link dev.retryagent.engine.RetryLoop} and {@link dev.retryagent.engine.AsyncRetryLoop}: the one loop each
 *       client's adapter runs its attempts in, through an {@link dev.retryagent.engine.Exchange} or
 *       {@link dev.retryagent.engine.AsyncExchange}: the adapter says how to send an attempt, read its outcome and
 *       release a response, nothing more. Both share {@code CallRun}: the call's start (nested, rule, marker,
 *       scope), what the run learns (the destinations redirects took its attempts to) and the step after each
 *       attempt.</li>
 *   <li>{@link dev.retryagent.engine.Backoff}, {@link dev.retryagent.engine.RetryAfter},
 *       {@link dev.retryagent.engine.RetryBudget}: the waits and the per-destination budget;
 *       {@link dev.retryagent.engine.RetryLog} and {@link dev.retryagent.engine.LogWindows}: the log lines and their
 *       windows; {@link dev.retryagent.engine.AttemptScope}: which calls are nested in another's attempt.</li>
 * </ul>
 *
 * <p>Invariants: no client types and no threads of its own. Time ({@link dev.retryagent.engine.Clock}),
 * randomness ({@link dev.retryagent.engine.RandomSource}), waiting ({@link dev.retryagent.engine.Sleeper})
 * and delayed work ({@link dev.retryagent.engine.Scheduler}) are injected, so that tests never wait and are
 * repeatable. Decisions and facts are immutable values; the only shared state is the per-destination
 * budgets, counters and log windows, which are thread-safe.
 */
package dev.retryagent.engine;

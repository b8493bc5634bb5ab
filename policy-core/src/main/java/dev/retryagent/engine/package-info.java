/**
 * The one retry engine, client-neutral and pure.
 *
 * <ul>
 *   <li>{@link dev.retryagent.engine.RetryEngine} answers two questions. Before a call, what may happen to it: given
 *       its {@link dev.retryagent.engine.CallFacts} (read by the adapter with
 *       {@link dev.retryagent.engine.CallFacts#builder}), its {@link dev.retryagent.engine.CallPlan}: rule, mode,
 *       marker, whether it may be retried, whether it is timed, whether the client's own retries give way. After each
 *       attempt, what to do: given the plan and how the attempt ended ({@code AttemptResult}), a
 *       {@link dev.retryagent.engine.RetryDecision}: classify, then the reasons no retry is allowed, then attempts,
 *       Retry-After and deadline, the budget last. Adapters ask the plan only; the loops ask both. Inside: the rule
 *       lookup and reload ({@code RuleLookup}), the decision ({@code Decider}), the counters and budgets
 *       ({@code Accounting}).</li>
 *   <li>{@link dev.retryagent.engine.RetryLoop} and {@link dev.retryagent.engine.AsyncRetryLoop}: the one loop each
 *       client's adapter runs its attempts in, through an {@link dev.retryagent.engine.Exchange} or
 *       {@link dev.retryagent.engine.AsyncExchange}: the adapter says how to send an attempt, read its outcome and
 *       release a response, nothing more. Both share {@code CallRun}: the call's start (nested, its plan,
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
 * repeatable. Facts, plans and decisions are immutable values; the only shared state is the per-destination
 * budgets, counters and log windows, which are thread-safe.
 */
package dev.retryagent.engine;

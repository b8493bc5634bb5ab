/**
 * What a valid policy file means for a call, for {@code java -jar retry-agent.jar check}: per section its timeline
 * ({@link dev.retryagent.analysis.Timeline}, from the engine's own {@link dev.retryagent.engine.Backoff}), whether it
 * rides out an outage and what change would ({@link dev.retryagent.analysis.Outage},
 * {@link dev.retryagent.analysis.Suggestion}), and its likely mistakes ({@link dev.retryagent.analysis.SectionChecks}).
 * Pure. It serves the command line only: the agent jar's nested bootstrap jar and boot class packs leave it out.
 */
package dev.retryagent.analysis;

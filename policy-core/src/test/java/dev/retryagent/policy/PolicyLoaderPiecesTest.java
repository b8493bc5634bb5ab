package dev.retryagent.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.snakeyaml.engine.v2.nodes.MappingNode;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.NodeTuple;
import org.snakeyaml.engine.v2.nodes.SequenceNode;

import dev.retryagent.policy.PolicySchema.Place;

/** The pieces the loader is made of, each on its own: schema, guarded composition, readers' helpers, text. */
class PolicyLoaderPiecesTest {

    @Test
    void theSchemasWordsAreTheModelsConfigNames() {
        assertEquals(List.of("enforce", "observe", "off"), PolicySchema.MODES.names());
        assertEquals(List.of("replace", "keep"), PolicySchema.BUILT_IN_RETRIES.names());
        assertEquals(List.of("full", "equal", "decorrelated", "none"), PolicySchema.JITTERS.names());
        assertEquals(List.of("connect", "reset", "timeout"), PolicySchema.FAILURES.names());
        assertEquals(new ArrayList<>(Match.CLIENTS), PolicySchema.CLIENTS.names());
        for (Mode mode : Mode.values()) {
            assertEquals(mode, PolicySchema.MODES.valueOf(mode.configName()));
        }
        for (BuiltInRetries value : BuiltInRetries.values()) {
            assertEquals(value, PolicySchema.BUILT_IN_RETRIES.valueOf(value.configName()));
        }
        for (Jitter jitter : Jitter.values()) {
            assertEquals(jitter, PolicySchema.JITTERS.valueOf(jitter.configName()));
        }
        for (String word : PolicySchema.FAILURES.names()) {
            assertEquals(FailureKind.fromConfigName(word), PolicySchema.FAILURES.valueOf(word));
        }
        assertNull(PolicySchema.FAILURES.valueOf(FailureKind.OTHER.configName()), "other is never retried");
    }

    @Test
    void aRuleAcceptsMatchModeAndEverySetting() {
        List<String> expected = new ArrayList<>(List.of("match", "mode"));
        expected.addAll(PolicySchema.SETTINGS_KEYS);
        assertEquals(expected, Place.RULE.keys());
        assertEquals(PolicySchema.SETTINGS_KEYS, Place.DEFAULTS.keys());
    }

    @Test
    void anAliasIsComposedAsARefusedAliasNodeAndReportedOnce() {
        PolicyErrors errors = new PolicyErrors("a.yaml");
        PolicyYaml yaml = PolicyYaml.compose("version: 1\nrules: [*x, *x]\n", errors);
        assertNull(yaml.failure());
        MappingNode root = assertInstanceOf(MappingNode.class, yaml.root());
        NodeTuple rules = root.getValue().get(1);
        List<Node> items = assertInstanceOf(SequenceNode.class, rules.getValueNode()).getValue();
        assertEquals(2, items.size());
        for (Node item : items) {
            assertEquals("x", assertInstanceOf(RefusedAliasNode.class, item).aliasName());
        }
        List<PolicyError> found = errors.byLine();
        assertEquals(1, found.size(), found.toString());
        assertEquals("rules[0]", found.get(0).key());
        assertTrue(found.get(0).message().contains("`*x`"), found.get(0).message());
    }

    @Test
    void textThatLooksLikeTheAliasStandInIsOrdinaryText() {
        PolicyException e = assertThrows(PolicyException.class,
                () -> PolicyLoader.parse("version: 1\nmode: \"\\0alias:x\"\n", "forged.yaml"));
        assertEquals(1, e.errors().size(), e.getMessage());
        assertEquals("mode", e.errors().get(0).key());
        assertTrue(e.errors().get(0).message().startsWith("unknown mode `\\u0000alias:x`"), e.getMessage());
    }

    @Test
    void misplacedKeysGetAHintWhereTheyBelong() {
        assertEquals("unknown top-level key `deadline`; settings go under `defaults` (or in a rule)",
                KeyHints.unknownKey("deadline", Place.TOP));
        assertEquals("`host` belongs under the rule's `match`, such as `match: { host: ... }`",
                KeyHints.unknownKey("host", Place.RULE));
        assertEquals("unknown key `jiter`; did you mean `jitter`?", KeyHints.unknownKey("jiter", Place.BACKOFF));
        assertEquals("unknown key `zzz`; allowed keys here: ratio, minPerSecond",
                KeyHints.unknownKey("zzz", Place.BUDGET));
    }

    @Test
    void messagesShowValuesShortAndEscaped() {
        assertEquals("a\\u0000b\\u007f", PolicyMessages.show("a\u0000b\u007f"));
        assertEquals("x".repeat(60) + "...", PolicyMessages.show("x".repeat(61)));
        assertEquals("`v`", PolicyMessages.quote("v"));
        assertEquals("a, b", PolicyMessages.join(List.of("a", "b")));
        assertEquals("observe", PolicyMessages.closest("obsrve", PolicySchema.MODES.names()));
        assertNull(PolicyMessages.closest("ab", List.of("xy")), "no suggestion that replaces the whole word");
        assertEquals(3, PolicyMessages.distance("kitten", "sitting"));
        assertEquals("IllegalStateException", PolicyMessages.describe(new IllegalStateException(" ")));
        assertEquals("first", PolicyMessages.describe(new IllegalStateException("first\nsecond")));
    }

    @Test
    void coreSchemaNumbers() {
        assertEquals(BigInteger.valueOf(31), YamlNumbers.parseInteger("0x1f"));
        assertEquals(BigInteger.valueOf(15), YamlNumbers.parseInteger("0o17"));
        assertEquals(BigInteger.valueOf(4), YamlNumbers.parseInteger("+4"));
        assertEquals(BigInteger.valueOf(-3), YamlNumbers.parseInteger("-3"));
        assertNull(YamlNumbers.parseInteger("-"));
        assertNull(YamlNumbers.parseInteger("++4"));
        assertNull(YamlNumbers.parseInteger("1_000"));
        assertEquals(Double.POSITIVE_INFINITY, YamlNumbers.parseFloat("+.inf"));
        assertEquals(1.5e3, YamlNumbers.parseFloat("1.5e3"));
        assertTrue(Double.isNaN(YamlNumbers.parseFloat(".nan")));
    }

    @Test
    void utf8LengthOfWellFormedTextIsCountedAsEncoded() {
        for (String text : Arrays.asList("", "ascii", "\u00e9t\u00e9", "\u20ac", "\uD83D\uDE00", "a\uD83D\uDE00b")) {
            assertEquals(text.getBytes(StandardCharsets.UTF_8).length, StrictUtf8.length(text), text);
        }
    }

    @Test
    void aBadUtf8ByteIsReportedOnItsLine() throws Exception {
        assertEquals("v: \u00e9", StrictUtf8.decode("v: \u00e9".getBytes(StandardCharsets.UTF_8), "u.yaml"));
        PolicyException e = assertThrows(PolicyException.class,
                () -> StrictUtf8.decode(new byte[] {'a', '\n', 'b', '\n', (byte) 0xff}, "u.yaml"));
        assertEquals(3, e.errors().get(0).line());
        assertEquals(PolicyErrors.FILE_KEY, e.errors().get(0).key());
    }

    @Test
    void errorsAreSortedByLineKeepingTheOrderFoundOnALine() {
        PolicyErrors errors = new PolicyErrors("s.yaml");
        errors.add(3, "c", "third");
        errors.add(1, "a", "first");
        errors.add(3, "b", "fourth");
        errors.add(2, "d", "second");
        List<String> keys = new ArrayList<>();
        for (PolicyError error : errors.byLine()) {
            keys.add(error.key());
        }
        assertEquals(List.of("a", "d", "c", "b"), keys);
        assertFalse(errors.isEmpty());
        assertEquals(4, errors.count());
    }
}

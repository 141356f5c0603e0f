package io.s3broadcast.bench.chaos;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** The scenarios the {@code chaos} command knows, by name; {@code all} runs every one in this order. */
public final class ChaosScenarios {

    private ChaosScenarios() {
    }

    /** Every scenario, in the order {@code all} runs them. */
    public static List<ChaosScenario> all() {
        return List.of(new StrangerScenario(), new WrongSecretScenario(), new TlsUntrustedScenario(),
                new HalfOpenScenario(), new LyingScenario(false, false), new LyingScenario(false, true),
                new LyingScenario(true, false), new LyingScenario(true, true));
    }

    /** The scenarios named by {@code name} ({@code all} or one name). */
    public static List<ChaosScenario> named(String name) {
        if (name.equals("all")) {
            return all();
        }
        Map<String, ChaosScenario> byName = new TreeMap<>();
        all().forEach(s -> byName.put(s.name(), s));
        ChaosScenario s = byName.get(name);
        if (s == null) {
            throw new IllegalArgumentException("unknown scenario '" + name + "': use one of " + byName.keySet()
                    + " or all");
        }
        return new ArrayList<>(List.of(s));
    }
}

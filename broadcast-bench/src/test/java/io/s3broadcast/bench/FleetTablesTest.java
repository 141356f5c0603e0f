package io.s3broadcast.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The machine's saturation in {@code fleet}'s node table and summary. */
class FleetTablesTest {

    private static final FluidBound T_STAR = FluidBound.of(96L << 20, 0,
            Collections.nCopies(2, FleetLink.parse("10MB")));

    @Test
    void theTrialsLineSaysHowLongTheMachineWasSaturated() {
        String out = nodes(FleetTrials.of(18.6, 0.72, 6.1));

        assertThat(out).contains("fleet CPU 26.8 s (72% of the cores; saturated 6.1 s of the slowest node's 18.6 s)");
    }

    @Test
    void withoutTheSaturationTheTrialsLineIsAsBefore() {
        assertThat(nodes(FleetTrials.of(18.6, 0.72, null))).contains("fleet CPU 26.8 s (72% of the cores)\n");
    }

    @Test
    void theSummaryHasTheMedianSaturatedShareOfTheSlowestNodesFetch() {
        List<FleetTrial> runs = List.of(FleetTrials.of(20, 0.7, 2.0), FleetTrials.of(20, 0.7, 6.0),
                FleetTrials.of(20, 0.7, 8.0));
        StringWriter text = new StringWriter();
        PrintWriter out = new PrintWriter(text);

        FleetTables.printSummary(out, T_STAR, List.of(report("overlap", runs, true),
                report("steal", List.of(FleetTrials.of(20, 0.7, null)), false)));
        out.flush();

        List<String> lines = text.toString().lines().toList();
        assertThat(lines.get(2)).containsPattern("CPU%\\s+sat%\\s+CPU-bound");
        assertThat(lines.get(3)).containsPattern("70%\\s+30%\\s+yes");
        assertThat(lines.get(4)).containsPattern("70%\\s+-\\s+no");
    }

    private static String nodes(FleetTrial trial) {
        StringWriter text = new StringWriter();
        PrintWriter out = new PrintWriter(text);
        FleetTables.printNodes(out, "overlap, trial 1", trial, T_STAR);
        out.flush();
        return text.toString().replace(System.lineSeparator(), "\n");
    }

    private static FleetReport report(String contender, List<FleetTrial> runs, boolean cpuBound) {
        return new FleetReport("fleet", "netns", contender, "strategy", 2, 96L << 20, runs.size(), "paper",
                List.of("10MB", "10MB"), 0, "cubic", null, T_STAR, 20.0, 15.0, 1.0, 1.0, 1.0, 5.0, 0.7, cpuBound, true,
                Map.of(), runs, null);
    }
}

package io.s3broadcast.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

class BenchCliTest {

    @Test
    void aNodeJvmBuildsTheNodeCommandAloneWithTheSameOptionsAsUnderTheWholeTree() {
        CommandLine alone = BenchCli.nodeCommandLine();
        CommandLine underTree = BenchCli.commandLine().getSubcommands().get(NodeCommand.NAME);

        assertThat(alone.getSubcommands()).isEmpty();
        assertThat(names(alone)).isEqualTo(names(underTree)).contains("--registry", "--start-signal");
        assertThat(alone.getUsageMessage()).contains("Usage: broadcast-bench node ");
    }

    @Test
    void aWrongNodeOptionIsReportedWithTheNodeCommandsOwnOptions() {
        CommandLine alone = BenchCli.nodeCommandLine();
        StringWriter err = new StringWriter();
        alone.setErr(new PrintWriter(err));

        int code = alone.execute("--bucket", "b", "--out", "/tmp", "--no-such-option");

        assertThat(code).isEqualTo(2);
        assertThat(err.toString()).contains("Unknown option: '--no-such-option'").contains("--no-sha256");
    }

    private static List<String> names(CommandLine cli) {
        return cli.getCommandSpec().options().stream().map(OptionSpec::longestName).sorted().toList();
    }
}

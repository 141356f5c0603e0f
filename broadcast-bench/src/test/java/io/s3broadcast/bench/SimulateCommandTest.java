package io.s3broadcast.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class SimulateCommandTest {

    @Test
    void simulatesEveryStrategyAndPrintsATableAndJsonLines() {
        StringWriter out = new StringWriter();
        CommandLine cli = new CommandLine(new BenchCli());
        cli.setOut(new PrintWriter(out));
        int code = cli.execute("simulate", "--nodes", "6", "--size", "16MiB", "--links", "4x10MB,2x2.5MB",
                "--seed", "5");
        String text = out.toString();
        assertThat(code).as(text).isZero();
        assertThat(text).contains("T* = ", "flat-tree", "non-steal", "steal", "overlap", "full mesh");
        assertThat(text.lines().filter(l -> l.startsWith("{\"command\":\"simulate\"")).count()).isEqualTo(4);
    }

    @Test
    void aBoundedOverlayIsTheDefaultAbove17NodesAsInTheEngine() {
        StringWriter out = new StringWriter();
        CommandLine cli = new CommandLine(new BenchCli());
        cli.setOut(new PrintWriter(out));
        int code = cli.execute("simulate", "--nodes", "18", "--size", "8MiB", "--strategies", "steal");
        assertThat(code).as(out.toString()).isZero();
        assertThat(out.toString()).contains("overlay of 16 peers dialled").contains("\"peers\":16")
                .contains("\"acceptPeers\":20");

        StringWriter mesh = new StringWriter();
        cli.setOut(new PrintWriter(mesh));
        code = cli.execute("simulate", "--nodes", "17", "--size", "8MiB", "--strategies", "steal");
        assertThat(code).as(mesh.toString()).isZero();
        assertThat(mesh.toString()).contains("full mesh").contains("\"connectionsMax\":16");
    }

    @Test
    void hostCoresSharesOneHostsCpuAndSaysWhatItCost() {
        StringWriter out = new StringWriter();
        CommandLine cli = new CommandLine(new BenchCli());
        cli.setOut(new PrintWriter(out));
        int code = cli.execute("simulate", "--nodes", "8", "--size", "8MiB", "--strategies", "non-steal",
                "--host-cores", "2");
        String text = out.toString();
        assertThat(code).as(text).isZero();
        assertThat(text).contains("host CPU: 2 cores shared by every node", "host CPU: starts end at 2.00 s",
                "\"hostCores\":2.0", "\"cpu\":{\"startSeconds\":2.0");

        StringWriter err = new StringWriter();
        cli.setErr(new PrintWriter(err));
        assertThat(cli.execute("simulate", "--host-cores", "0")).isNotZero();
        assertThat(err.toString()).contains("--host-cores must be > 0");
    }
}

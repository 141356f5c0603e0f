package io.s3broadcast.bench;

import java.util.Arrays;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** The bench's command line: {@code java -jar broadcast-bench.jar COMMAND [OPTIONS]}. */
@Command(name = "broadcast-bench",
        mixinStandardHelpOptions = true,
        versionProvider = BenchCli.Version.class,
        subcommands = {SingleCommand.class, DemoCommand.class, NodeCommand.class, ClusterCommand.class, ChaosCommand.class,
            FleetCommand.class, PaperCommand.class, ReportCommand.class, SimulateCommand.class,
            CommandLine.HelpCommand.class},
        synopsisSubcommandLabel = "COMMAND",
        headerHeading = "%n",
        header = "Measures s3-broadcast against the AWS SDK's own downloaders.",
        description = {
            "%nEach command prints a human-readable table on stdout and ends with one JSON line summarising the run"
                    + " (documented in docs/bench.md). Logs go to stderr. By default an S3Proxy server runs inside"
                    + " this JVM on 127.0.0.1, so nothing leaves the machine.",
        },
        commandListHeading = "%nCommands:%n",
        footerHeading = "%nExamples:%n",
        footer = {
            "  java -jar broadcast-bench.jar demo",
            "  java -jar broadcast-bench.jar single --size 1GiB --trials 3",
            "  java -jar broadcast-bench.jar cluster --nodes 8 --size 256MiB --trials 3",
            "  java -jar broadcast-bench.jar node --endpoint URL --bucket B --key K --out DIR \\",
            "      --registry static:10.0.0.1:7070,10.0.0.2:7070 --listen 10.0.0.1:7070 --expect 2",
            "  java -jar broadcast-bench.jar chaos --scenario all",
            "  java -jar broadcast-bench.jar help single",
            "%nSettings of Broadcast not given as options are read from s3broadcast.* system properties",
            "and S3BROADCAST_* environment variables, e.g. java -Ds3broadcast.maxAttempts=3 -jar ...",
        })
public final class BenchCli implements Runnable {

    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "name a command: single, demo, node, cluster or chaos (see --help)");
    }

    /** The command line, for {@link #main} and for tests that run commands in-process. */
    public static CommandLine commandLine() {
        return new CommandLine(new BenchCli());
    }

    /**
     * The {@code node} command alone, as a node JVM runs it: picocli reflects over every option of every command it
     * is given, on a cold JVM. Building the whole tree took 0.16 CPU-s of each node JVM's start, the node command
     * alone 0.11 (async-profiler; docs/results.md, session 28).
     */
    static CommandLine nodeCommandLine() {
        return new CommandLine(new NodeCommand()).setCommandName("broadcast-bench " + NodeCommand.NAME);
    }

    /** Runs the command {@code args} name and returns its exit code. */
    static int run(String[] args) {
        if (args.length > 0 && args[0].equals(NodeCommand.NAME)) {
            return nodeCommandLine().execute(Arrays.copyOfRange(args, 1, args.length));
        }
        return commandLine().execute(args);
    }

    public static void main(String[] args) {
        int code = run(args);
        // S3Proxy's Jetty and the SDK's event loops are not all daemon threads.
        System.exit(code);
    }

    /** The version from the jar's manifest. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = BenchCli.class.getPackage().getImplementationVersion();
            return new String[] {"broadcast-bench " + (v != null ? v : "(development build)"),
                "Java " + System.getProperty("java.version") + " on " + System.getProperty("os.name") + " "
                        + System.getProperty("os.arch")};
        }
    }
}

package io.s3broadcast.bench;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import software.amazon.awssdk.core.async.AsyncResponseTransformer;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.model.S3Object;

/** {@code report}: gathers the JSON lines a real fleet's {@code node --results} put in S3 into tables. */
@Command(name = "report",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        headerHeading = "%n",
        header = "Gather a real fleet's results (node --trials --strategies --results s3://...) into tables.",
        description = {
            "%nReads every PREFIX/t<trial>/<strategy>/<node>.json, and prints per strategy the median over trials of"
                    + " the slowest and the mean node's fetch time, S3 bytes over the size (as the nodes report them:"
                    + " there is no proxy on a real fleet), CPU seconds per node, and whether every node had the same"
                    + " SHA-256; then one JSON line per strategy, and with --csv one row per node.",
        })
final class ReportCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--results", required = true, paramLabel = "s3://BUCKET/PREFIX", description = "Where the nodes put results.")
    URI results;

    @Option(names = "--endpoint", paramLabel = "URL", description = "S3 endpoint (default: AWS S3 of the region).")
    URI endpoint;

    @Option(names = "--region", description = "Signing region (default: the SDK's region chain).")
    String region;

    @Option(names = "--path-style", arity = "1", paramLabel = "true|false", description = "Path-style addressing.")
    Boolean pathStyle;

    @Option(names = "--csv", paramLabel = "FILE", description = "Also write one row per node and run.")
    Path csv;

    /**
     * One strategy over the fleet's trials.
     *
     * @param command {@code report}
     * @param strategy the strategy
     * @param trials trials found
     * @param nodes nodes in the largest trial
     * @param size object size
     * @param slowestSeconds median over trials of the slowest node's fetch seconds
     * @param meanSeconds median over trials of the mean node's fetch seconds
     * @param s3BytesOverSize mean over trials of the S3 bytes all nodes report / size
     * @param cpuSecondsPerNode mean CPU seconds of the node processes at their JSON line (all runs so far in that
     *     process)
     * @param sha256Match every node of every trial had the same SHA-256 and no error
     */
    @JsonPropertyOrder({"command", "strategy", "trials", "nodes", "size", "slowestSeconds", "meanSeconds",
            "s3BytesOverSize", "cpuSecondsPerNode", "sha256Match"})
    record StrategyReport(String command, String strategy, int trials, int nodes, long size, Double slowestSeconds,
            Double meanSeconds, double s3BytesOverSize, Double cpuSecondsPerNode, boolean sha256Match) {
    }

    @Override
    public Integer call() throws Exception {
        if (!"s3".equals(results.getScheme())) {
            throw new ParameterException(spec.commandLine(), "--results must be s3://bucket/prefix");
        }
        String bucket = results.getHost();
        String prefix = results.getPath().replaceAll("^/+|/+$", "");
        Endpoint ep = Endpoint.external(endpoint, region, pathStyle);
        // strategy -> trial -> node reports
        Map<String, Map<Integer, List<JsonNode>>> runs = new TreeMap<>();
        List<String> rows = new ArrayList<>(List.of("strategy,trial,nodeId,seconds,phase1Seconds,phase2Seconds,"
                + "bytesFromS3,bytesFromPeers,piecesStolen,cpuSeconds,sha256,error"));
        try (S3AsyncClient s3 = ep.nettyClient(8).build()) {
            List<S3Object> objects = new ArrayList<>();
            s3.listObjectsV2Paginator(b -> b.bucket(bucket).prefix(prefix.isEmpty() ? "" : prefix + "/"))
                    .contents().subscribe(objects::add).join();
            for (S3Object o : objects) {
                String rest = o.key().substring(prefix.isEmpty() ? 0 : prefix.length() + 1);
                String[] parts = rest.split("/");
                if (parts.length != 3 || !parts[0].startsWith("t") || !parts[2].endsWith(".json")) {
                    continue;
                }
                int trial = Integer.parseInt(parts[0].substring(1));
                String body = s3.getObject(b -> b.bucket(bucket).key(o.key()), AsyncResponseTransformer.toBytes())
                        .join().asUtf8String();
                JsonNode json = Json.mapper().readTree(body);
                runs.computeIfAbsent(parts[1], k -> new TreeMap<>()).computeIfAbsent(trial, k -> new ArrayList<>()).add(json);
                rows.add(String.join(",", parts[1], String.valueOf(trial), json.path("nodeId").asText(),
                        json.path("seconds").asText(), json.path("phase1Seconds").asText(),
                        json.path("phase2Seconds").asText(), json.path("bytesFromS3").asText(),
                        json.path("bytesFromPeers").asText(), json.path("piecesStolen").asText(),
                        json.path("process").path("cpuSeconds").asText(), json.path("sha256").asText(),
                        json.path("error").isNull() ? "" : '"' + json.path("error").asText().replace("\"", "'") + '"'));
            }
        }
        PrintWriter out = spec.commandLine().getOut();
        if (runs.isEmpty()) {
            out.println("no results under " + results);
            out.flush();
            return 1;
        }
        List<StrategyReport> reports = new ArrayList<>();
        for (Map.Entry<String, Map<Integer, List<JsonNode>>> e : runs.entrySet()) {
            reports.add(summarise(e.getKey(), e.getValue()));
        }
        out.printf(Locale.ROOT, "%n  %-12s %6s %6s %10s %10s %8s %10s  %s%n", "strategy", "trials", "nodes", "slowest s",
                "mean s", "S3/S", "CPU s/node", "sha256");
        for (StrategyReport r : reports) {
            out.printf(Locale.ROOT, "  %-12s %6d %6d %10s %10s %8.2f %10s  %s%n", r.strategy(), r.trials(), r.nodes(),
                    r.slowestSeconds(), r.meanSeconds(), r.s3BytesOverSize(), r.cpuSecondsPerNode(),
                    r.sha256Match() ? "ok" : "MISMATCH");
        }
        reports.forEach(r -> out.println(Json.line(r)));
        out.flush();
        if (csv != null) {
            Files.write(csv, rows);
        }
        return reports.stream().allMatch(StrategyReport::sha256Match) ? 0 : 1;
    }

    static StrategyReport summarise(String strategy, Map<Integer, List<JsonNode>> trials) {
        List<Double> slowest = new ArrayList<>();
        List<Double> mean = new ArrayList<>();
        double s3 = 0;
        double cpu = 0;
        int cpuCount = 0;
        int nodes = 0;
        long size = 0;
        boolean ok = true;
        String sha = null;
        for (List<JsonNode> trial : trials.values()) {
            nodes = Math.max(nodes, trial.size());
            double max = 0;
            double sum = 0;
            long bytes = 0;
            for (JsonNode n : trial) {
                ok &= n.path("error").isNull();
                String h = n.path("sha256").asText();
                ok &= sha == null || sha.equals(h);
                sha = sha == null ? h : sha;
                double sec = n.path("seconds").asDouble();
                max = Math.max(max, sec);
                sum += sec;
                bytes += n.path("bytesFromS3").asLong();
                size = Math.max(size, n.path("size").asLong());
                if (n.path("process").path("cpuSeconds").isNumber()) {
                    cpu += n.path("process").path("cpuSeconds").asDouble();
                    cpuCount++;
                }
            }
            slowest.add(max);
            mean.add(sum / trial.size());
            s3 += size == 0 ? 0 : (double) bytes / size;
        }
        return new StrategyReport("report", strategy, trials.size(), nodes, size, median(slowest), median(mean),
                SingleCommand.round(s3 / trials.size(), 3), cpuCount == 0 ? null : SingleCommand.round(cpu / cpuCount, 2), ok);
    }

    private static Double median(List<Double> values) {
        return ClusterCommand.median(values);
    }
}

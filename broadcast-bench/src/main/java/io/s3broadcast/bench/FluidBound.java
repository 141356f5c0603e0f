package io.s3broadcast.bench;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.List;

/**
 * The fluid lower bound on the slowest node's completion time, the floor physics sets for broadcasting {@code S}
 * bytes from S3 to {@code N} nodes: {@code T* = max(S/O, S/D_min, N*S/(O + sum U))}. Each byte must leave S3 at least
 * once (aggregate S3 rate {@code O}), every node must receive all {@code S} bytes through its download link {@code D},
 * and the {@code N*S} bytes all nodes receive come either from S3 or from some node's upload {@code U}.
 *
 * @param seconds T*
 * @param binds which term is largest: {@code s3} (S/O), {@code download} (S/D of the slowest link) or
 *     {@code upload} (N*S/(O + sum U))
 * @param s3Term S/O, 0 when S3 has no aggregate cap
 * @param downloadTerm S/D_min, 0 when every download is unlimited
 * @param uploadTerm N*S/(O + sum U), 0 when S3 or an upload is unlimited
 * @param aggregateS3Rate O in bytes per second, 0 for uncapped
 */
@JsonPropertyOrder({"seconds", "binds", "s3Term", "downloadTerm", "uploadTerm", "aggregateS3Rate"})
record FluidBound(double seconds, String binds, double s3Term, double downloadTerm, double uploadTerm,
        long aggregateS3Rate) {

    static FluidBound of(long size, long aggregateS3Rate, List<FleetLink> links) {
        int n = links.size();
        double s3 = aggregateS3Rate > 0 ? (double) size / aggregateS3Rate : 0;
        long minDown = links.stream().mapToLong(FleetLink::down).filter(d -> d > 0).min().orElse(0);
        boolean anyUnlimitedDown = links.stream().anyMatch(l -> l.down() == 0);
        double down = minDown > 0 ? (double) size / minDown : 0;
        if (anyUnlimitedDown && links.stream().allMatch(l -> l.down() == 0)) {
            down = 0;
        }
        boolean uploadBounded = aggregateS3Rate > 0 && links.stream().allMatch(l -> l.up() > 0);
        double up = 0;
        if (uploadBounded) {
            long sumUp = links.stream().mapToLong(FleetLink::up).sum();
            up = (double) n * size / (aggregateS3Rate + sumUp);
        }
        double t = Math.max(s3, Math.max(down, up));
        String binds = t == 0 ? "none" : t == down ? "download" : t == s3 ? "s3" : "upload";
        return new FluidBound(SingleCommand.round(t, 3), binds, SingleCommand.round(s3, 3), SingleCommand.round(down, 3),
                SingleCommand.round(up, 3), aggregateS3Rate);
    }

    /** {@code value / T*}, or null when either is unknown. */
    Double ratio(Double value) {
        return value == null || seconds <= 0 ? null : SingleCommand.round(value / seconds, 3);
    }
}

/**
 * A discrete-event simulator of a broadcast, for fleets too large to emulate ({@code simulate}): the engine's policy
 * objects from {@code io.s3broadcast.spi.cluster} run in {@link io.s3broadcast.bench.sim.SimNode}s on a virtual
 * clock ({@link io.s3broadcast.bench.sim.EventQueue}), their piece bytes and S3 responses carried as max-min fair
 * fluid flows ({@link io.s3broadcast.bench.sim.FluidNetwork}) over per-node links and the testkit's S3 profile,
 * and optionally over one host's cores that every node shares ({@link io.s3broadcast.bench.sim.HostCpu}, as on the
 * netns fleet).
 * {@link io.s3broadcast.bench.sim.Simulation} runs one broadcast and returns a
 * {@link io.s3broadcast.bench.sim.SimResult}. The model and its validation are in docs/scale.md.
 */
package io.s3broadcast.bench.sim;

/**
 * How the nodes of one broadcast find each other.
 *
 * <p>A {@link io.s3broadcast.registry.NodeRegistry} announces this node ({@link io.s3broadcast.registry.NodeInfo}:
 * id, advertised host and port) to a broadcast group ({@link io.s3broadcast.registry.GroupId}: bucket, key,
 * ETag and an optional name), lists the group's members and reports who joins and who leaves.
 * {@link io.s3broadcast.registry.Membership#awaitMembers Membership.awaitMembers} waits for an expected
 * number of members up to a timeout and then starts with whoever is there; late joiners take part through
 * stealing and phase 2.
 *
 * <p>Registries are chosen by a spec string ({@link io.s3broadcast.registry.RegistrySpec}):
 * {@code static:host:port,host:port} (built in, {@link io.s3broadcast.registry.StaticRegistry}),
 * {@code s3://bucket/prefix} (module {@code broadcast-s3}) and {@code zk://host:port/path} (module
 * {@code broadcast-p2p}). Each scheme is served by a {@link io.s3broadcast.registry.NodeRegistryProvider}
 * found with {@link java.util.ServiceLoader}. Implementations extend
 * {@link io.s3broadcast.registry.AbstractNodeRegistry}, which keeps the member table and delivers events.
 *
 * <p>{@link io.s3broadcast.registry.AdvertisedAddress} picks the address other nodes should use to reach
 * this one on a host with several interfaces.
 */
package io.s3broadcast.registry;

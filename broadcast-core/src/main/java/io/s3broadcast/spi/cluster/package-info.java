/**
 * The decisions of the cluster broadcast (Chiba et al., sections 4.2 and 4.3), as pure, deterministic
 * logic: no sockets, no threads, no timers; time comes from an injected {@link com.google.common.base.Ticker}
 * and chance from a seeded {@link java.util.Random}. The peer exchange (module {@code broadcast-p2p})
 * feeds these classes what it hears and sends what they decide. Peers are named by node id.
 *
 * <h2>Phase 1: every node reads a disjoint share from S3</h2>
 *
 * <p>{@link io.s3broadcast.spi.cluster.Shares}: of {@code P} pieces and {@code N} nodes, node
 * {@code i} reads {@code [iP/N, (i+1)P/N)}; with {@code P < N} some shares are empty. For the steal
 * algorithm a share is cut into <em>works</em>; how many pieces a work and a ranged GET hold, and over how
 * many connections, is the {@link io.s3broadcast.spi.cluster.WorkSizing} policy's choice (computed from
 * the share by default; the paper used 32 KB pieces, works of 100 pieces and one S3 connection,
 * {@code PhaseOneSettings.paper(steal)}). Each strategy is a {@link io.s3broadcast.spi.cluster.ClusterPlan}:
 * it plans the share, says whether the node steals and gives works, and when phase 2 may run.
 *
 * <p>{@link io.s3broadcast.spi.cluster.WorkList} is a node's list of works and the
 * {@link io.s3broadcast.spi.PieceQueue} its S3 fetch polls: runs are handed out in list order within one
 * work (or across works that are adjacent in the list and in the object), handed-out pieces are in flight
 * until the store reports them. A {@code giveWork} is answered by
 * {@link io.s3broadcast.spi.cluster.WorkList#giveAway()} (the rule is the package-private {@code WorkGiving}'s):
 * the last {@code ceil(u/2)} of the {@code u} works not yet started (the paper's example: works 38 to 63 with 38
 * under way give 51 to 63), or, with one unstarted work or none, the back half of the list's queued tail; the
 * count a node advertises is the paper's {@code len}, every work not completely stored. The thief appends them
 * with {@link io.s3broadcast.spi.cluster.WorkList#append}. The works themselves are the package-private
 * {@code Work} (a run and each piece's state) in {@code Works} (list order, indexed by first piece).
 *
 * <p>{@link io.s3broadcast.spi.cluster.StealingScheduler} decides what a node does when its list has
 * nothing left to hand out: send {@code giveWork} to a peer drawn among those that advertised most works left (by a
 * seeded random), one request at a time; a peer that gives nothing is not asked again until it
 * advertises more; with no victim left the node is done with phase 1. Non-steal never steals. A dead
 * node's unfinished pieces are shared out again among the survivors by
 * {@link io.s3broadcast.spi.cluster.Shares#reassign}, a pure function every survivor can evaluate.
 *
 * <h2>Phase 2: BitTorrent-like exchange</h2>
 *
 * <p>{@link io.s3broadcast.spi.cluster.RequestScheduler} (built by
 * {@link io.s3broadcast.spi.cluster.RequestSchedulerBuilder}) keeps who holds what
 * ({@code Availability}, from bitfields, haves and departures) and every outstanding request, and says
 * which pieces to request from a peer: ones the peer holds, this node lacks, nobody is asked for, and this
 * node's S3 fetch is not going to deliver (the overlap rule: a piece in flight from S3 is not also fetched
 * from a peer), ordered by a {@link io.s3broadcast.spi.cluster.PieceSelector}
 * ({@code rarest()}, or {@code randomizedRarest(random)} with a random start among equally rare pieces),
 * as many outstanding per peer as its {@link io.s3broadcast.spi.cluster.RequestDepth} gives for the
 * rate the peer delivered at (fixed, or adaptive: a queue time's worth), never more than
 * {@code maxRequestsPerPeer}; a peer at least twice as fast gets the pieces it holds first
 * ({@code FasterPeersFirst}). When every missing piece is in flight it enters endgame ({@code Endgame}): the
 * last pieces may be requested from several peers, and a stored piece yields the requests to cancel.
 * {@link io.s3broadcast.spi.cluster.HaveBatcher} gathers the pieces stored in one event-loop turn so each peer
 * gets their {@code HAVE}s with one flush (the engine's {@code PieceStored} announces through it).
 *
 * <p>{@link io.s3broadcast.spi.cluster.ChokeScheduler} (over a
 * {@link io.s3broadcast.spi.cluster.ChokePolicy}, the package-private {@code Choker} and
 * {@code RateMeter}; built by {@link io.s3broadcast.spi.cluster.ChokeSchedulerBuilder}) decides every
 * interval whom to unchoke. Tit-for-tat: the {@code k} interested peers with the highest download rate
 * over a sliding window (upload rate once seeding), plus one optimistic unchoke drawn again every few
 * intervals. Cooperative: every interested peer up to {@code k + 1}, ranked by rate then fewest pieces
 * when capped, one slot optimistic, and at most 8 per piece this node holds ({@code PiecesHeldCap}).
 * Neither unchokes an uninterested peer, and neither flips one connection twice within the minimum flip
 * interval.
 *
 * <h2>Threads</h2>
 *
 * <p>Public classes are thread-safe (synchronized; the work list is polled by every S3 connection). The
 * only lock order is {@code RequestScheduler} then {@code WorkList}; nothing here calls out to the caller.
 * Package-private helpers ({@code Availability}, {@code Choker}, {@code Endgame}, {@code FasterPeersFirst},
 * {@code OutstandingRequests}, {@code RateMeter}, {@code Work}, {@code Works}, {@code WorkGiving}) are guarded by
 * their owners;
 * {@code PiecesHeldCap} reads a count the caller keeps thread-safe.
 */
package io.s3broadcast.spi.cluster;

/**
 * The wire protocol between s3-broadcast nodes: length-prefixed frames over TCP, one small class per message
 * ({@link io.s3broadcast.p2p.protocol.MessageType} lists them with their wire ids), a validating decoder, a
 * stateless encoder and the handshake, in which each side proves that it holds the group's secret
 * ({@link io.s3broadcast.p2p.protocol.PeerAuthenticator}) before anything else is exchanged; optional mutual TLS
 * underneath ({@link io.s3broadcast.p2p.protocol.PeerTls}). {@link io.s3broadcast.p2p.protocol.PeerPipeline} assembles the handlers of
 * a connection and hands over to an exchange handler with a
 * {@link io.s3broadcast.p2p.protocol.HandshakeCompleted} event; {@link io.s3broadcast.p2p.protocol.PieceWriter}
 * sends a piece from the piece store's file without copying it.
 *
 * <p>This package knows messages, not policy: which piece to request, whom to choke and when to steal work are
 * decided elsewhere. The format is written down in {@code docs/protocol.md}.
 *
 * <p>Buffer ownership: a decoded {@link io.s3broadcast.p2p.protocol.Piece} holds a reference to the received bytes
 * that its reader must release; every other message holds no buffer. Writing a {@code Piece} passes its
 * reference to the encoder.
 */
package io.s3broadcast.p2p.protocol;

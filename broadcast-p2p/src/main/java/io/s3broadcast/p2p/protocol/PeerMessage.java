package io.s3broadcast.p2p.protocol;

/**
 * A message of the peer protocol, as the decoder produces it and the encoder takes it. Only {@link Piece} holds a
 * reference-counted buffer; every other message is an immutable value.
 */
public sealed interface PeerMessage
        permits BitfieldMessage, Cancel, Choke, Digests, Done, GiveWorkRequest, GiveWorkResponse, Goodbye, Handshake, Auth,
                Have,
                Interested, KeepAlive, NotInterested, Piece, Reject, RelayedDigests, Request, Unchoke, WorksLeft {

    MessageType type();
}

package io.s3broadcast.p2p.protocol;

import io.netty.channel.Channel;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import java.io.File;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.Objects;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLException;
import javax.net.ssl.TrustManagerFactory;

/**
 * Mutual TLS for peer connections, through Netty's {@link SslHandler}: every node presents its certificate and
 * accepts only peers whose certificate chains to its trust anchors, whichever side dials. Host names are not
 * checked (nodes are found through the registry, often by IP address): who is trusted is decided by the trust
 * anchors alone, so use a private CA that signs only the cluster's nodes.
 *
 * <p>TLS protects the connection (confidentiality, integrity, and who may connect at all); the group secret's
 * challenge-response still runs inside it. With TLS the pieces are copied through the TLS engine instead of being
 * sent zero-copy from the file ({@link PieceWriter}).
 */
public final class PeerTls {

    private final SslContext server;
    private final SslContext client;

    private PeerTls(SslContext server, SslContext client) {
        this.server = server;
        this.client = client;
    }

    /**
     * From PEM files: this node's certificate chain, its PKCS#8 private key (unencrypted) and the certificates it
     * trusts (typically the cluster's CA).
     */
    public static PeerTls fromPem(File certChain, File privateKey, File trustedCerts) {
        Objects.requireNonNull(certChain, "certChain");
        Objects.requireNonNull(privateKey, "privateKey");
        Objects.requireNonNull(trustedCerts, "trustedCerts");
        try {
            return new PeerTls(
                    SslContextBuilder.forServer(certChain, privateKey).trustManager(trustedCerts)
                            .clientAuth(ClientAuth.REQUIRE).build(),
                    SslContextBuilder.forClient().keyManager(certChain, privateKey).trustManager(trustedCerts).build());
        } catch (SSLException | IllegalArgumentException e) {
            throw new IllegalArgumentException("cannot set up TLS from certificate " + certChain + ", key " + privateKey
                    + " and trusted certificates " + trustedCerts + ": " + e.getMessage(), e);
        }
    }

    /**
     * From key stores: {@code keyStore} holds this node's key and certificate chain (unlocked with
     * {@code keyPassword}), {@code trustStore} the certificates it trusts.
     */
    public static PeerTls fromKeyStores(KeyStore keyStore, char[] keyPassword, KeyStore trustStore) {
        try {
            KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(keyStore, keyPassword);
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(trustStore);
            return new PeerTls(
                    SslContextBuilder.forServer(kmf).trustManager(tmf).clientAuth(ClientAuth.REQUIRE).build(),
                    SslContextBuilder.forClient().keyManager(kmf).trustManager(tmf).build());
        } catch (GeneralSecurityException | SSLException e) {
            throw new IllegalArgumentException("cannot set up TLS from the given key stores: " + e.getMessage(), e);
        }
    }

    /** A new TLS handler for {@code channel}, client mode for the dialling side; goes first in the pipeline. */
    public SslHandler newHandler(Channel channel, PeerPipeline.Side side) {
        return (side == PeerPipeline.Side.DIALER ? client : server).newHandler(channel.alloc());
    }
}

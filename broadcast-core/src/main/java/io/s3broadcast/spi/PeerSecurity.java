package io.s3broadcast.spi;

import java.nio.file.Path;
import java.security.KeyStore;
import java.util.Arrays;
import java.util.Objects;

/**
 * How a node's peer connections are secured: the group secret every member proves it holds (or insecure mode),
 * and optional mutual TLS. {@link #toString()} never shows the secret or a password.
 *
 * @param secret the group secret, or null: then the registry is asked for one it holds (S3 prefix, ZooKeeper),
 *     unless {@code insecure}
 * @param insecure accept peers without any secret; only for trusted networks
 * @param tls mutual TLS, or null for plain TCP
 */
public record PeerSecurity(byte[] secret, boolean insecure, Tls tls) {

    public PeerSecurity {
        if (secret != null && insecure) {
            throw new IllegalArgumentException("a group secret and insecure mode exclude each other: drop one");
        }
        secret = secret == null ? null : secret.clone();
    }

    /** No secret configured, not insecure, no TLS: the registry must hold the secret. */
    public static PeerSecurity fromRegistry() {
        return new PeerSecurity(null, false, null);
    }

    @Override
    public byte[] secret() {
        return secret == null ? null : secret.clone();
    }

    /** This, with {@code secret} as the group secret. */
    public PeerSecurity withSecret(byte[] secret) {
        return new PeerSecurity(Objects.requireNonNull(secret, "secret"), false, tls);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PeerSecurity p && Arrays.equals(p.secret, secret) && p.insecure == insecure
                && Objects.equals(p.tls, tls);
    }

    @Override
    public int hashCode() {
        return Objects.hash(Arrays.hashCode(secret), insecure, tls);
    }

    @Override
    public String toString() {
        return "PeerSecurity[" + (secret != null ? "secret" : insecure ? "insecure" : "secret from registry")
                + (tls != null ? ", tls" : "") + "]";
    }

    /**
     * Mutual TLS material: either PEM files (certificate chain, PKCS#8 key, trusted certificates) or key stores.
     *
     * @param certChain PEM certificate chain of this node, or null when key stores are used
     * @param privateKey PEM PKCS#8 private key of this node
     * @param trustedCerts PEM certificates this node trusts (the cluster's CA)
     * @param keyStore key store with this node's key and chain, or null when PEM files are used
     * @param keyPassword password of the key in {@code keyStore}
     * @param trustStore key store with the certificates this node trusts
     */
    public record Tls(Path certChain, Path privateKey, Path trustedCerts, KeyStore keyStore, char[] keyPassword,
            KeyStore trustStore) {

        public Tls {
            boolean pem = certChain != null || privateKey != null || trustedCerts != null;
            boolean stores = keyStore != null || trustStore != null;
            if (pem == stores) {
                throw new IllegalArgumentException("TLS needs either PEM files (certificate, key, trusted certificates)"
                        + " or key stores, not both or neither");
            }
            if (pem && (certChain == null || privateKey == null || trustedCerts == null)) {
                throw new IllegalArgumentException("TLS from PEM files needs all three: the certificate chain (--tls-cert),"
                        + " the private key (--tls-key) and the trusted certificates (--tls-trust); got " + certChain
                        + ", " + privateKey + ", " + trustedCerts);
            }
            if (stores && (keyStore == null || trustStore == null)) {
                throw new IllegalArgumentException("TLS from key stores needs both a key store and a trust store");
            }
            keyPassword = keyPassword == null ? new char[0] : keyPassword.clone();
        }

        public static Tls fromPem(Path certChain, Path privateKey, Path trustedCerts) {
            return new Tls(certChain, privateKey, trustedCerts, null, null, null);
        }

        public static Tls fromKeyStores(KeyStore keyStore, char[] keyPassword, KeyStore trustStore) {
            return new Tls(null, null, null, keyStore, keyPassword, trustStore);
        }

        @Override
        public String toString() {
            return certChain != null ? "Tls[" + certChain + ", " + privateKey + ", trust " + trustedCerts + "]"
                    : "Tls[key stores]";
        }
    }
}

package io.s3broadcast.bench.chaos;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;

/**
 * The nodes run mutual TLS with a certificate of their own (made with {@code keytool} for this run, never
 * stored), and hold the secret. The adversary even holds the right secret, but its certificate is one the nodes
 * do not trust (and half the time it tries plain TCP): TLS alone must keep it out.
 */
final class TlsUntrustedScenario implements ChaosScenario {

    private static final String PASSWORD = "chaos-only";

    @Override
    public String name() {
        return "tls-untrusted";
    }

    @Override
    public String description() {
        return "nodes run mutual TLS; a peer with the right secret but an untrusted certificate (or none) dials them";
    }

    @Override
    public ChaosResult run(ChaosContext c) throws Exception {
        long start = System.nanoTime();
        String group = AttackLoop.group(c);
        String secret = StrangerScenario.randomSecret();
        byte[] secretBytes = secret.getBytes(StandardCharsets.UTF_8);
        try (NodeFleet fleet = c.fleet(name(), c.nodes())) {
            Path dir = Files.createDirectories(fleet.dir().resolve("tls"));
            Path cluster = keyPair(dir, "cluster");
            Path intruder = keyPair(dir, "intruder");
            Path cert = dir.resolve("cluster.crt");
            Path key = dir.resolve("cluster.key");
            writePem(cluster, cert, key);
            fleet.env("S3BROADCAST_SECRET", secret)
                    .args("--tls-cert", cert.toString(), "--tls-key", key.toString(), "--tls-trust", cert.toString())
                    .startAll();
            SSLContext untrusted = SSLContext.getInstance("TLS");
            KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(load(intruder), PASSWORD.toCharArray());
            untrusted.init(kmf.getKeyManagers(), new TrustManager[] {new TrustAll()}, null);
            int[] n = {0};
            AttackLoop loop = AttackLoop.run(fleet, c.nodeTimeout(), () -> new Adversary(group, c.size(), 256 * 1024,
                    secretBytes, false, n[0]++ % 2 == 0 ? untrusted.getSocketFactory() : null));
            StringBuilder notes = new StringBuilder();
            boolean exact = fleet.awaitByteExact(notes);
            notes.append("connections ended: ").append(loop.endings);
            return ChaosResult.of(name(), c.nodes(), c.size(), loop.attempts, loop.objectBytes, loop.bitfields,
                    loop.metadata, 0, exact, fleet.honestConnectionsRefused(), (System.nanoTime() - start) / 1e9,
                    notes.toString());
        }
    }

    /** A PKCS#12 key store with a fresh self-signed EC key pair, made by the JDK's keytool. */
    private static Path keyPair(Path dir, String name) throws IOException, InterruptedException {
        Path store = dir.resolve(name + ".p12");
        Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
        Process p = new ProcessBuilder(List.of(keytool.toString(), "-genkeypair", "-alias", name, "-keyalg", "EC",
                "-groupname", "secp256r1", "-dname", "CN=s3broadcast-" + name, "-validity", "2",
                "-ext", "SAN=ip:127.0.0.1", "-storetype", "PKCS12", "-keystore", store.toString(),
                "-storepass", PASSWORD, "-keypass", PASSWORD))
                .redirectErrorStream(true).redirectOutput(dir.resolve(name + ".keytool.log").toFile()).start();
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException("keytool could not make a key pair; see " + dir.resolve(name + ".keytool.log"));
        }
        return store;
    }

    private static KeyStore load(Path store) throws IOException {
        try (InputStream in = Files.newInputStream(store)) {
            KeyStore ks = KeyStore.getInstance("PKCS12");
            ks.load(in, PASSWORD.toCharArray());
            return ks;
        } catch (java.security.GeneralSecurityException e) {
            throw new IOException("cannot read " + store + ": " + e, e);
        }
    }

    /** The key store's certificate and PKCS#8 key as PEM files, as the CLI takes them. */
    private static void writePem(Path store, Path cert, Path key) throws Exception {
        KeyStore ks = load(store);
        String alias = ks.aliases().nextElement();
        X509Certificate c = (X509Certificate) ks.getCertificate(alias);
        java.security.Key k = ks.getKey(alias, PASSWORD.toCharArray());
        Base64.Encoder b64 = Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII));
        Files.writeString(cert, "-----BEGIN CERTIFICATE-----\n" + b64.encodeToString(c.getEncoded())
                + "\n-----END CERTIFICATE-----\n");
        Files.writeString(key, "-----BEGIN PRIVATE KEY-----\n" + b64.encodeToString(k.getEncoded())
                + "\n-----END PRIVATE KEY-----\n");
        key.toFile().setReadable(false, false);
        key.toFile().setReadable(true, true);
    }

    /** The adversary trusts anything: it wants in, not safety. */
    private static final class TrustAll implements X509TrustManager {
        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType) {
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType) {
        }

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return new X509Certificate[0];
        }
    }
}

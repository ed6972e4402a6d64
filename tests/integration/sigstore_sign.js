// Signs model image digests as cosign v3 does, with sigstore-js against
// @sigstore/mock's Fulcio, CT log and Rekor (an independent signer: the
// product verifies what another implementation made).
//
// stdin: {"signatures": [{"digest": "sha256:HEX", "subject": "...", "issuer": "...",
//          "predicateType": "...", "expired": false}]}
// stdout: {"trustedRoot": {...trusted_root.json...}, "bundles": [bundle JSON, ...],
//          "sigstoreJs": ["verified" or why @sigstore/verify refused each, ...]}
// NODE_PATH names the node_modules holding @sigstore/sign and @sigstore/mock.
'use strict';
const crypto = require('crypto');
const { initializeCA, initializeCTLog, initializeTLog, fulcioHandler, rekorHandler } = require('@sigstore/mock');
const { mock } = require('@sigstore/mock/dist/mock');
const { DSSEBundleBuilder, FulcioSigner, RekorWitness } = require('@sigstore/sign');
const { bundleFromJSON, bundleToJSON } = require('@sigstore/bundle');
const { TrustedRoot } = require('@sigstore/protobuf-specs');
const { Verifier, toSignedEntity, toTrustMaterial } = require('@sigstore/verify');

const FULCIO = 'https://fulcio.mock.test';
const FULCIO_PAST = 'https://fulcio-past.mock.test';
const REKOR = 'https://rekor.mock.test';

const b64url = (o) => Buffer.from(JSON.stringify(o)).toString('base64url');
// An unsigned OIDC token: the mock reads its claims, as Fulcio would after verifying it.
const token = (issuer, subject) => `${b64url({ alg: 'none' })}.${b64url({ iss: issuer, sub: subject, aud: 'sigstore' })}.`;
const keyPair = () => crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' });
const spki = (k) => k.export({ format: 'der', type: 'spki' });

async function main() {
  const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));
  const caKeys = keyPair();
  const ctKeys = keyPair();
  const tlogKeys = keyPair();
  const ctlog = await initializeCTLog(ctKeys);
  const ca = await initializeCA(caKeys, ctlog);
  // A CA whose clock is a day behind: its certificates expired long before Rekor logs their signature.
  const pastCa = await initializeCA(caKeys, ctlog, new Date(Date.now() - 24 * 3600 * 1000));
  const tlog = await initializeTLog(REKOR, tlogKeys);
  const bundles = [];
  for (const s of input.signatures) {
    // Each nock interceptor answers once.
    mock(s.expired ? FULCIO_PAST : FULCIO, fulcioHandler(s.expired ? pastCa : ca));
    mock(REKOR, rekorHandler(tlog));
    const signer = new FulcioSigner({
      fulcioBaseURL: s.expired ? FULCIO_PAST : FULCIO,
      identityProvider: { getToken: async () => token(s.issuer, s.subject) },
    });
    // An intoto entry: the mock logs the proposed entry as its body, which for
    // intoto (not dsse) is the body Rekor itself would write.
    const builder = new DSSEBundleBuilder({ signer, witnesses: [new RekorWitness({ rekorBaseURL: REKOR, entryType: 'intoto' })] });
    const statement = {
      _type: 'https://in-toto.io/Statement/v1',
      subject: [{ name: s.name || 'model', digest: { sha256: s.digest.replace(/^sha256:/, '') } }],
      predicateType: s.predicateType || 'https://sigstore.dev/cosign/sign/v1',
      predicate: {},
    };
    const bundle = await builder.create({ data: Buffer.from(JSON.stringify(statement)), type: 'application/vnd.in-toto+json' });
    bundles.push(bundleToJSON(bundle));
  }
  const start = new Date(Date.now() - 7 * 24 * 3600 * 1000).toISOString();
  const trustedRoot = {
    mediaType: 'application/vnd.dev.sigstore.trustedroot+json;version=0.1',
    tlogs: [{
      baseUrl: REKOR, hashAlgorithm: 'SHA2_256',
      publicKey: { rawBytes: tlog.publicKey.toString('base64'), keyDetails: 'PKIX_ECDSA_P256_SHA_256', validFor: { start } },
      logId: { keyId: crypto.createHash('sha256').update(tlog.publicKey).digest('base64') },
    }],
    certificateAuthorities: [ca, pastCa].map((c) => ({
      subject: { organization: 'sigstore.mock', commonName: 'sigstore' }, uri: FULCIO,
      certChain: { certificates: [{ rawBytes: Buffer.from(c.rootCertificate).toString('base64') }] }, validFor: { start },
    })),
    ctlogs: [{
      baseUrl: 'https://ctfe.mock.test', hashAlgorithm: 'SHA2_256',
      publicKey: { rawBytes: spki(ctKeys.publicKey).toString('base64'), keyDetails: 'PKIX_ECDSA_P256_SHA_256', validFor: { start } },
      logId: { keyId: Buffer.from(ctlog.logID).toString('base64') },
    }],
    timestampAuthorities: [],
  };
  // sigstore-js's own verdict on each bundle, its identity asked for: a cross-check of the product's.
  const verifier = new Verifier(toTrustMaterial(TrustedRoot.fromJSON(trustedRoot)), { tlogThreshold: 1, ctlogThreshold: 1 });
  const sigstoreJs = input.signatures.map((s, i) => {
    try {
      verifier.verify(toSignedEntity(bundleFromJSON(bundles[i])), { subjectAlternativeName: s.subject, extensions: { issuer: s.issuer } });
      return 'verified';
    } catch (e) {
      return String(e && e.message ? e.message : e);
    }
  });
  process.stdout.write(JSON.stringify({ trustedRoot, bundles, sigstoreJs }));
}

main().catch((e) => {
  console.error(e && e.stack ? e.stack : String(e));
  process.exit(1);
});

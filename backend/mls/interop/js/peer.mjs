#!/usr/bin/env node
// peer.mjs: a file-based MLS peer over ts-mls with the same command line as
// backend/cmd/mlspeer, so the Go interop test can drive either implementation
// the same way (see docs/protocol/mls.md, "mlspeer and interop").
//
//   node peer.mjs --state DIR [--identity ID] [--hex] [--private-handshake] CMD ...
//   node peer.mjs serve
//
// Exit codes: 0 ok, 1 protocol error, 2 usage, 3 unsupported. serve runs
// invocations read from stdin, one a line (a JSON array of the arguments),
// in this one process and answers each with one line
// {"exit","stdout","stderr"}: what a process of its own would have exited
// with and printed. Each still loads and saves its state directory; only
// Node's start-up and the cipher suite are shared.
import { readFileSync, writeFileSync, existsSync, mkdirSync, renameSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import {
  createApplicationMessage,
  createCommit,
  createGroup,
  decodeGroupState,
  decodeMlsMessage,
  defaultCapabilities,
  defaultLifetime,
  emptyPskIndex,
  encodeGroupState,
  encodeMlsMessage,
  generateKeyPackage,
  getCiphersuiteFromName,
  getCiphersuiteImpl,
  joinGroup,
  joinGroupExternal,
  mlsExporter,
  processMessage,
  acceptAll,
} from "ts-mls";
import { encodeRatchetTree, decodeRatchetTree } from "ts-mls/ratchetTree.js";
import { makeKeyPackageRef } from "ts-mls/keyPackage.js";
import { defaultClientConfig } from "ts-mls/clientConfig.js";
import { createGroupInfo } from "ts-mls/createCommit.js";

const SUITE = "MLS_128_DHKEMX25519_AES128GCM_SHA256_Ed25519";

class UsageError extends Error {}
class UnsupportedError extends Error {}

const enc = new TextEncoder();
const dec = new TextDecoder();

function toHex(b) {
  return Buffer.from(b).toString("hex");
}
function fromHex(s) {
  if (s.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(s)) throw new UsageError(`not hex: ${s}`);
  return new Uint8Array(Buffer.from(s, "hex"));
}

// readInput reads a file holding raw bytes or their hex form (detected).
function readInput(path) {
  const raw = readFileSync(path);
  const text = raw.toString("latin1").trim();
  if (text.length > 0 && text.length % 2 === 0 && /^[0-9a-fA-F]+$/.test(text)) {
    return new Uint8Array(Buffer.from(text, "hex"));
  }
  return new Uint8Array(raw);
}

function parseArgs(argv) {
  const opts = { hex: false, privateHandshake: false, resync: false, state: undefined, identity: undefined };
  const rest = [];
  const named = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const need = () => {
      if (i + 1 >= argv.length) throw new UsageError(`${a} needs a value`);
      return argv[++i];
    };
    if (a === "--state") opts.state = need();
    else if (a === "--identity") opts.identity = need();
    else if (a === "--hex") opts.hex = true;
    else if (a === "--private-handshake") opts.privateHandshake = true;
    else if (a === "--resync") opts.resync = true;
    else if (a === "--welcome" || a === "--commit" || a === "--ratchet-tree") named[a.slice(2)] = need();
    else if (a.startsWith("--")) throw new UsageError(`unknown flag ${a}`);
    else rest.push(a);
  }
  if (opts.state === undefined) throw new UsageError("--state DIR is required");
  if (rest.length === 0) throw new UsageError("missing command");
  return { opts, cmd: rest[0], args: rest.slice(1), named };
}

class Peer {
  constructor(opts, impl, out) {
    this.opts = opts;
    this.impl = impl;
    this.out = out; // writes to the invocation's stdout
    this.dir = opts.state;
    mkdirSync(this.dir, { recursive: true });
    this.file = join(this.dir, "ts-peer.json");
    const saved = existsSync(this.file) ? JSON.parse(readFileSync(this.file, "utf8")) : {};
    this.identity = saved.identity;
    this.keyPackages = saved.keyPackages ?? [];
    this.group = undefined;
    if (saved.group) {
      const decoded = decodeGroupState(fromHex(saved.group), 0);
      if (decoded === undefined) throw new Error("stored group state does not decode");
      this.group = { ...decoded[0], clientConfig: defaultClientConfig };
    }
    if (opts.identity !== undefined) {
      if (this.identity !== undefined && this.identity !== opts.identity)
        throw new UsageError(`state belongs to identity ${this.identity}`);
      this.identity = opts.identity;
    }
  }

  save() {
    const out = {
      identity: this.identity,
      keyPackages: this.keyPackages,
      group: this.group ? toHex(encodeGroupState(this.group)) : undefined,
    };
    const tmp = this.file + ".tmp";
    writeFileSync(tmp, JSON.stringify(out));
    renameSync(tmp, this.file);
  }

  credential() {
    if (this.identity === undefined) throw new UsageError("--identity is required the first time");
    return { credentialType: "basic", identity: enc.encode(this.identity) };
  }

  needGroup() {
    if (this.group === undefined) throw new UsageError("no group in this state directory");
    return this.group;
  }

  write(path, bytes) {
    writeFileSync(path, this.opts.hex ? toHex(bytes) : bytes);
  }

  members() {
    const out = [];
    const tree = this.needGroup().ratchetTree;
    for (let i = 0; i < tree.length; i += 2) {
      const n = tree[i];
      if (n !== undefined && n.nodeType === "leaf") {
        const c = n.leaf.credential;
        out.push({ index: i / 2, identity: c.credentialType === "basic" ? dec.decode(c.identity) : "" });
      }
    }
    return out;
  }

  info() {
    const g = this.needGroup();
    return {
      epoch: Number(g.groupContext.epoch),
      group_id: toHex(g.groupContext.groupId),
      own_leaf: g.privatePath.leafIndex,
      members: this.members(),
    };
  }

  async freshKeyPackage() {
    return generateKeyPackage(this.credential(), defaultCapabilities(), defaultLifetime, [], this.impl);
  }

  async keypackage(out) {
    const kp = await this.freshKeyPackage();
    const msg = encodeMlsMessage({ version: "mls10", wireformat: "mls_key_package", keyPackage: kp.publicPackage });
    const ref = await makeKeyPackageRef(kp.publicPackage, this.impl.hash);
    this.keyPackages.push({
      ref: toHex(ref),
      public: toHex(msg),
      initPrivateKey: toHex(kp.privatePackage.initPrivateKey),
      hpkePrivateKey: toHex(kp.privatePackage.hpkePrivateKey),
      signaturePrivateKey: toHex(kp.privatePackage.signaturePrivateKey),
    });
    this.write(out, msg);
    return { keypackage: out, ref: toHex(ref) };
  }

  async create(groupId) {
    if (this.group !== undefined) throw new UsageError("this state directory already has a group");
    const kp = await this.freshKeyPackage();
    this.group = await createGroup(enc.encode(groupId), kp.publicPackage, kp.privatePackage, [], this.impl);
    return this.info();
  }

  wireformat(m) {
    return m.wireformat;
  }

  commitOptions(extra) {
    return { wireAsPublicMessage: !this.opts.privateHandshake, ...extra };
  }

  async commit(options, named) {
    const g = this.needGroup();
    const res = await createCommit({ state: g, cipherSuite: this.impl }, options);
    if (named.commit === undefined) throw new UsageError("--commit OUT is required");
    this.write(named.commit, encodeMlsMessage(res.commit));
    this.group = res.newState;
    return res;
  }

  async add(kps, named) {
    if (kps.length === 0) throw new UsageError("add needs at least one key package file");
    if (named.welcome === undefined) throw new UsageError("--welcome OUT is required");
    const proposals = kps.map((f) => {
      const m = decodeOne(readInput(f));
      if (m.wireformat !== "mls_key_package") throw new ProtocolError(`${f} is not a key package`);
      return { proposalType: "add", add: { keyPackage: m.keyPackage } };
    });
    const res = await this.commit(
      this.commitOptions({ extraProposals: proposals, ratchetTreeExtension: named["ratchet-tree"] === undefined }),
      named,
    );
    this.write(named.welcome, encodeMlsMessage({ version: "mls10", wireformat: "mls_welcome", welcome: res.welcome }));
    if (named["ratchet-tree"] !== undefined) this.write(named["ratchet-tree"], encodeRatchetTree(this.group.ratchetTree));
    return this.info();
  }

  async joinWelcome(file, named) {
    if (this.group !== undefined) throw new UsageError("this state directory already has a group");
    const m = decodeOne(readInput(file));
    if (m.wireformat !== "mls_welcome") throw new ProtocolError(`${file} is not a welcome`);
    let tree;
    if (named["ratchet-tree"] !== undefined) {
      const d = decodeRatchetTree(readInput(named["ratchet-tree"]), 0);
      if (d === undefined) throw new ProtocolError("ratchet tree does not decode");
      tree = d[0];
    }
    const refs = new Set(m.welcome.secrets.map((s) => toHex(s.newMember)));
    const idx = this.keyPackages.findIndex((k) => refs.has(k.ref));
    if (idx < 0) throw new ProtocolError("the welcome is for none of our key packages");
    const k = this.keyPackages[idx];
    const pub = decodeOne(fromHex(k.public)).keyPackage;
    const priv = {
      initPrivateKey: fromHex(k.initPrivateKey),
      hpkePrivateKey: fromHex(k.hpkePrivateKey),
      signaturePrivateKey: fromHex(k.signaturePrivateKey),
    };
    this.group = await joinGroup(m.welcome, pub, priv, emptyPskIndex, this.impl, tree);
    this.keyPackages.splice(idx, 1);
    return this.info();
  }

  async groupinfo(out, named) {
    const g = this.needGroup();
    const oob = named["ratchet-tree"] !== undefined;
    // ts-mls 1.6.4 puts the bare key in external_pub; RFC 9420 §12.4.3.2
    // defines struct { HPKEPublicKey external_pub; }, i.e. the key with a
    // varint length prefix. Build the extension the RFC way and sign.
    const kp = await this.impl.hpke.deriveKeyPair(g.keySchedule.externalSecret);
    const pub = await this.impl.hpke.exportPublicKey(kp.publicKey);
    const exts = [{ extensionType: "external_pub", extensionData: withLength(pub) }];
    if (!oob) exts.push({ extensionType: "ratchet_tree", extensionData: encodeRatchetTree(g.ratchetTree) });
    const gi = await createGroupInfo(g.groupContext, g.confirmationTag, g, exts, this.impl);
    this.write(out, encodeMlsMessage({ version: "mls10", wireformat: "mls_group_info", groupInfo: gi }));
    if (oob) this.write(named["ratchet-tree"], encodeRatchetTree(g.ratchetTree));
    return { epoch: Number(g.groupContext.epoch) };
  }

  async externalJoin(file, named) {
    // --resync rejoins a group this state holds, removing the old leaf.
    if (this.group !== undefined && !this.opts.resync) throw new UsageError("this state directory already has a group");
    if (named.commit === undefined) throw new UsageError("--commit OUT is required");
    const m = decodeOne(readInput(file));
    if (m.wireformat !== "mls_group_info") throw new ProtocolError(`${file} is not a group info`);
    let tree;
    if (named["ratchet-tree"] !== undefined) {
      const d = decodeRatchetTree(readInput(named["ratchet-tree"]), 0);
      if (d === undefined) throw new ProtocolError("ratchet tree does not decode");
      tree = d[0];
    }
    const kp = await this.freshKeyPackage();
    // ts-mls finds the leaf to resync by signature key; the joiner has fresh
    // keys, so match the basic credential's identity instead (as mlspeer).
    const config = {
      ...defaultClientConfig,
      keyPackageEqualityConfig: {
        compareKeyPackages: (a, b) => sameIdentity(a.leafNode.credential, b.leafNode.credential),
        compareKeyPackageToLeafNode: (a, b) => sameIdentity(a.leafNode.credential, b.credential),
      },
    };
    const res = await joinGroupExternal(m.groupInfo, kp.publicPackage, kp.privatePackage, this.opts.resync, rfcExternalPub(this.impl), tree, config);
    this.write(
      named.commit,
      encodeMlsMessage({ version: "mls10", wireformat: "mls_public_message", publicMessage: res.publicMessage }),
    );
    this.group = res.newState;
    return this.info();
  }

  async process(files) {
    const lines = [];
    for (const f of files) {
      const g = this.needGroup();
      const m = decodeOne(readInput(f));
      if (m.wireformat !== "mls_public_message" && m.wireformat !== "mls_private_message")
        throw new ProtocolError(`${f} is neither a public nor a private message`);
      const ctype = m.wireformat === "mls_public_message" ? m.publicMessage.content.contentType : m.privateMessage.contentType;
      const res = await processMessage(m, g, emptyPskIndex, acceptAll, this.impl);
      this.group = res.newState;
      const line = { file: f, type: ctype, epoch: Number(this.group.groupContext.epoch) };
      if (res.kind === "applicationMessage") line.text = dec.decode(res.message);
      if (ctype === "commit") {
        line.active = this.group.groupActiveState.kind === "active";
        if (line.active) line.members = this.members();
      }
      this.save();
      lines.push(line);
      this.out(JSON.stringify(line) + "\n");
    }
    return undefined;
  }

  async send(text, out) {
    const g = this.needGroup();
    const res = await createApplicationMessage(g, enc.encode(text), this.impl);
    this.group = res.newState;
    this.write(out, encodeMlsMessage({ version: "mls10", wireformat: "mls_private_message", privateMessage: res.privateMessage }));
    return { epoch: Number(this.group.groupContext.epoch) };
  }

  async remove(target, named) {
    let leaf;
    if (target.startsWith("id:")) {
      const want = target.slice(3);
      const m = this.members().find((x) => x.identity === want);
      if (m === undefined) throw new ProtocolError(`no member with identity ${want}`);
      leaf = m.index;
    } else if (/^[0-9]+$/.test(target)) {
      leaf = Number(target);
    } else throw new UsageError(`remove takes LEAF_INDEX or id:IDENTITY, not ${target}`);
    await this.commit(this.commitOptions({ extraProposals: [{ proposalType: "remove", remove: { removed: leaf } }] }), named);
    return this.info();
  }

  async update(named) {
    // An empty commit carries a path: it refreshes our leaf and every key on our direct path.
    await this.commit(this.commitOptions({}), named);
    return this.info();
  }

  async export(label, contextHex, len) {
    const g = this.needGroup();
    const n = Number(len);
    if (!Number.isInteger(n) || n < 0 || n > 65535) throw new UsageError(`bad length ${len}`);
    const out = await mlsExporter(g.keySchedule.exporterSecret, label, fromHex(contextHex), n, this.impl);
    return toHex(out);
  }
}

class ProtocolError extends Error {}

function sameIdentity(a, b) {
  return a.credentialType === "basic" && b.credentialType === "basic" && Buffer.from(a.identity).equals(Buffer.from(b.identity));
}

// withLength prefixes b with its RFC 9420 §2.1.2 varint length.
function withLength(b) {
  const n = b.length;
  let pre;
  if (n < 0x40) pre = [n];
  else if (n < 0x4000) pre = [0x40 | (n >> 8), n & 0xff];
  else pre = [0x80 | (n >>> 24), (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff];
  return new Uint8Array([...pre, ...b]);
}

// withoutLength returns the body of an RFC 9420 opaque<V> holding exactly a
// KEM public key (32, 65, 97 or 133 bytes), or undefined.
function withoutLength(b) {
  if (b.length === 0) return undefined;
  const top = b[0] >> 6;
  let n, off;
  if (top === 0) [n, off] = [b[0], 1];
  else if (top === 1 && b.length >= 2) [n, off] = [((b[0] & 0x3f) << 8) | b[1], 2];
  else return undefined;
  if (off + n !== b.length || ![32, 65, 97, 133].includes(n)) return undefined;
  return b.subarray(off);
}

// rfcExternalPub adapts a cipher suite so that ts-mls's joinGroupExternal,
// which takes external_pub as the bare key, accepts the RFC encoding (the
// GroupInfo signature still covers the bytes as sent). Bare keys pass as is.
function rfcExternalPub(impl) {
  const hpke = Object.create(impl.hpke);
  hpke.importPublicKey = (k) => impl.hpke.importPublicKey(withoutLength(k) ?? k);
  return { ...impl, hpke };
}

function decodeOne(bytes) {
  let d;
  try {
    d = decodeMlsMessage(bytes, 0);
  } catch (e) {
    throw new ProtocolError(`message does not decode: ${e.message}`);
  }
  if (d === undefined) throw new ProtocolError("message does not decode");
  if (d[1] !== bytes.length) throw new ProtocolError("trailing bytes after message");
  return d[0];
}

// execute runs one invocation (argv without the program) with the cipher
// suite impl, writing its stdout through out.
async function execute(argv, impl, out) {
  const { opts, cmd, args, named } = parseArgs(argv);
  const peer = new Peer(opts, impl, out);
  const want = (n) => {
    if (args.length !== n) throw new UsageError(`${cmd} takes ${n} argument(s)`);
  };
  let result;
  switch (cmd) {
    case "keypackage":
      want(1);
      result = await peer.keypackage(args[0]);
      break;
    case "create":
      want(1);
      result = await peer.create(args[0]);
      break;
    case "add":
      result = await peer.add(args, named);
      break;
    case "join-welcome":
      want(1);
      result = await peer.joinWelcome(args[0], named);
      break;
    case "groupinfo":
      want(1);
      result = await peer.groupinfo(args[0], named);
      break;
    case "external-join":
      want(1);
      result = await peer.externalJoin(args[0], named);
      break;
    case "process":
      if (args.length === 0) throw new UsageError("process needs at least one file");
      await peer.process(args);
      return;
    case "send":
      want(2);
      result = await peer.send(args[0], args[1]);
      break;
    case "remove":
      want(1);
      result = await peer.remove(args[0], named);
      break;
    case "update":
      want(0);
      result = await peer.update(named);
      break;
    case "export":
      want(3);
      out((await peer.export(args[0], args[1], args[2])) + "\n");
      return;
    case "epoch-authenticator":
      want(0);
      out(toHex(peer.needGroup().keySchedule.epochAuthenticator) + "\n");
      return;
    case "info":
      want(0);
      result = peer.info();
      break;
    default:
      throw new UsageError(`unknown command ${cmd}`);
  }
  peer.save();
  out(JSON.stringify(result) + "\n");
}

function exitCode(e) {
  if (e instanceof UsageError) return 2;
  if (e instanceof UnsupportedError) return 3;
  return 1;
}

const errorLine = (e) => `${e.constructor.name}: ${e.message}\n`;

// serve answers the invocations on stdin in order, one line each, until
// stdin ends; a line that is not a JSON array of strings ends it with 2.
async function serve(impl) {
  for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
    let argv;
    try {
      argv = JSON.parse(line);
    } catch {
      argv = undefined;
    }
    if (!Array.isArray(argv) || !argv.every((a) => typeof a === "string")) {
      process.stderr.write("serve: a request line is not a JSON array of strings\n");
      process.exit(2);
    }
    let stdout = "";
    let answer;
    try {
      await execute(argv, impl, (s) => (stdout += s));
      answer = { exit: 0, stdout, stderr: "" };
    } catch (e) {
      answer = { exit: exitCode(e), stdout, stderr: errorLine(e) };
    }
    process.stdout.write(JSON.stringify(answer) + "\n");
  }
}

async function main(argv) {
  const impl = await getCiphersuiteImpl(getCiphersuiteFromName(SUITE));
  if (argv.length === 1 && argv[0] === "serve") return serve(impl);
  return execute(argv, impl, (s) => process.stdout.write(s));
}

main(process.argv.slice(2)).then(
  () => process.exit(0),
  (e) => {
    process.stderr.write(errorLine(e));
    process.exit(exitCode(e));
  },
);

export namespace app {
	
	export class AddResult {
	    added: number;
	    pending: number;
	
	    static createFrom(source: any = {}) {
	        return new AddResult(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.added = source["added"];
	        this.pending = source["pending"];
	    }
	}
	export class RotatedGroup {
	    name: string;
	    epoch: number;
	
	    static createFrom(source: any = {}) {
	        return new RotatedGroup(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.epoch = source["epoch"];
	    }
	}
	export class Receipt {
	    operation: string;
	    user: string;
	    name: string;
	    channel: string;
	    groups: RotatedGroup[];
	    devicesRevoked: number;
	    agentsRevoked: number;
	    accessVersion: number;
	    at: number;
	
	    static createFrom(source: any = {}) {
	        return new Receipt(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.operation = source["operation"];
	        this.user = source["user"];
	        this.name = source["name"];
	        this.channel = source["channel"];
	        this.groups = this.convertValues(source["groups"], RotatedGroup);
	        this.devicesRevoked = source["devicesRevoked"];
	        this.agentsRevoked = source["agentsRevoked"];
	        this.accessVersion = source["accessVersion"];
	        this.at = source["at"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Removal {
	    operation: string;
	    state: 'running' | 'needs_reapproval' | 'done';
	    step: 'revoke' | 'rotate' | 'wraps' | 'invites' | 'access' | 'receipt' | 'done';
	    intervening: string[];
	    receipt?: Receipt;
	
	    static createFrom(source: any = {}) {
	        return new Removal(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.operation = source["operation"];
	        this.state = source["state"];
	        this.step = source["step"];
	        this.intervening = source["intervening"];
	        this.receipt = this.convertValues(source["receipt"], Receipt);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Waiting {
	    channel: string;
	    since: number;
	
	    static createFrom(source: any = {}) {
	        return new Waiting(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.channel = source["channel"];
	        this.since = source["since"];
	    }
	}
	export class MemberDevice {
	    device: string;
	    revoked: boolean;
	    you: boolean;
	    probation: boolean;
	    lastSeen: number;
	    waiting: Waiting[];
	    agents: number;
	    canApprove: boolean;
	
	    static createFrom(source: any = {}) {
	        return new MemberDevice(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.device = source["device"];
	        this.revoked = source["revoked"];
	        this.you = source["you"];
	        this.probation = source["probation"];
	        this.lastSeen = source["lastSeen"];
	        this.waiting = this.convertValues(source["waiting"], Waiting);
	        this.agents = source["agents"];
	        this.canApprove = source["canApprove"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class AdminMember {
	    user: string;
	    name: string;
	    role: 'member' | 'admin';
	    revoked: boolean;
	    you: boolean;
	    joined: number;
	    devices: MemberDevice[];
	    removal?: Removal;
	
	    static createFrom(source: any = {}) {
	        return new AdminMember(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.user = source["user"];
	        this.name = source["name"];
	        this.role = source["role"];
	        this.revoked = source["revoked"];
	        this.you = source["you"];
	        this.joined = source["joined"];
	        this.devices = this.convertValues(source["devices"], MemberDevice);
	        this.removal = this.convertValues(source["removal"], Removal);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class AgentScope {
	    channel: string;
	    name: string;
	    admission: 'everyone' | 'parent' | 'explicit';
	    history: 'open' | 'closed';
	    member: boolean;
	
	    static createFrom(source: any = {}) {
	        return new AgentScope(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.channel = source["channel"];
	        this.name = source["name"];
	        this.admission = source["admission"];
	        this.history = source["history"];
	        this.member = source["member"];
	    }
	}
	export class Agent {
	    id: string;
	    name: string;
	    fingerprint: string;
	    owner: string;
	    ownerName: string;
	    scope: AgentScope[];
	    expiry: number;
	    state: 'live' | 'expired' | 'revoked';
	    yours: boolean;
	    parent: string;
	    parentName: string;
	
	    static createFrom(source: any = {}) {
	        return new Agent(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.name = source["name"];
	        this.fingerprint = source["fingerprint"];
	        this.owner = source["owner"];
	        this.ownerName = source["ownerName"];
	        this.scope = this.convertValues(source["scope"], AgentScope);
	        this.expiry = source["expiry"];
	        this.state = source["state"];
	        this.yours = source["yours"];
	        this.parent = source["parent"];
	        this.parentName = source["parentName"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class AgentRequest {
	    agent: string;
	    name: string;
	    fingerprint: string;
	    scope: AgentScope[];
	    expiry: number;
	    renewal: boolean;
	    added: string[];
	    dropped: string[];
	    parent: string;
	    parentName: string;
	    blocked: string;
	
	    static createFrom(source: any = {}) {
	        return new AgentRequest(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.agent = source["agent"];
	        this.name = source["name"];
	        this.fingerprint = source["fingerprint"];
	        this.scope = this.convertValues(source["scope"], AgentScope);
	        this.expiry = source["expiry"];
	        this.renewal = source["renewal"];
	        this.added = source["added"];
	        this.dropped = source["dropped"];
	        this.parent = source["parent"];
	        this.parentName = source["parentName"];
	        this.blocked = source["blocked"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	
	export class AgentSubmission {
	    renewed?: Agent;
	    request?: AgentRequest;
	
	    static createFrom(source: any = {}) {
	        return new AgentSubmission(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.renewed = this.convertValues(source["renewed"], Agent);
	        this.request = this.convertValues(source["request"], AgentRequest);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Policy {
	    admission: 'everyone' | 'parent' | 'explicit';
	    history: 'open' | 'closed';
	    default: boolean;
	    hash: string;
	
	    static createFrom(source: any = {}) {
	        return new Policy(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.admission = source["admission"];
	        this.history = source["history"];
	        this.default = source["default"];
	        this.hash = source["hash"];
	    }
	}
	export class Channel {
	    id: string;
	    name: string;
	    policy: Policy;
	    muted: boolean;
	    unread: number;
	    mentions?: number;
	    joined: boolean;
	    defaultName: string;
	    kind: 'chan' | 'dm';
	    peer: string;
	
	    static createFrom(source: any = {}) {
	        return new Channel(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.name = source["name"];
	        this.policy = this.convertValues(source["policy"], Policy);
	        this.muted = source["muted"];
	        this.unread = source["unread"];
	        this.mentions = source["mentions"];
	        this.joined = source["joined"];
	        this.defaultName = source["defaultName"];
	        this.kind = source["kind"];
	        this.peer = source["peer"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class ChannelMember {
	    user: string;
	    name: string;
	    device: string;
	    you: boolean;
	    pending: boolean;
	    since: number;
	    agent?: boolean;
	    ownerName?: string;
	
	    static createFrom(source: any = {}) {
	        return new ChannelMember(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.user = source["user"];
	        this.name = source["name"];
	        this.device = source["device"];
	        this.you = source["you"];
	        this.pending = source["pending"];
	        this.since = source["since"];
	        this.agent = source["agent"];
	        this.ownerName = source["ownerName"];
	    }
	}
	export class ChannelRetention {
	    channel: string;
	    textDays: number;
	    mediaDays: number;
	    defaultPolicy: boolean;
	    admin: boolean;
	
	    static createFrom(source: any = {}) {
	        return new ChannelRetention(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.channel = source["channel"];
	        this.textDays = source["textDays"];
	        this.mediaDays = source["mediaDays"];
	        this.defaultPolicy = source["defaultPolicy"];
	        this.admin = source["admin"];
	    }
	}
	export class Recovery {
	    stage: 'listing' | 'approval' | 'wait' | 'finishing' | 'done';
	    device: string;
	    listed: boolean;
	    probationEnds: number;
	    revokedOld: number;
	
	    static createFrom(source: any = {}) {
	        return new Recovery(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.stage = source["stage"];
	        this.device = source["device"];
	        this.listed = source["listed"];
	        this.probationEnds = source["probationEnds"];
	        this.revokedOld = source["revokedOld"];
	    }
	}
	export class Error {
	    code: string;
	    message: string;
	
	    static createFrom(source: any = {}) {
	        return new Error(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.code = source["code"];
	        this.message = source["message"];
	    }
	}
	export class Provision {
	    workspace: string;
	    genesisKey: string;
	    command: string;
	
	    static createFrom(source: any = {}) {
	        return new Provision(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.workspace = source["workspace"];
	        this.genesisKey = source["genesisKey"];
	        this.command = source["command"];
	    }
	}
	export class Workspace {
	    id: string;
	    name: string;
	    relay: string;
	    you: string;
	    ready: boolean;
	    unread: number;
	    connected: boolean;
	    pending: string[];
	    canInvite: boolean;
	    provision?: Provision;
	    problem?: Error;
	    removed: boolean;
	    notifications: 'all' | 'mentions' | 'none';
	    link: string;
	    recovery?: Recovery;
	
	    static createFrom(source: any = {}) {
	        return new Workspace(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.name = source["name"];
	        this.relay = source["relay"];
	        this.you = source["you"];
	        this.ready = source["ready"];
	        this.unread = source["unread"];
	        this.connected = source["connected"];
	        this.pending = source["pending"];
	        this.canInvite = source["canInvite"];
	        this.provision = this.convertValues(source["provision"], Provision);
	        this.problem = this.convertValues(source["problem"], Error);
	        this.removed = source["removed"];
	        this.notifications = source["notifications"];
	        this.link = source["link"];
	        this.recovery = this.convertValues(source["recovery"], Recovery);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Created {
	    workspace: Workspace;
	    recoveryPhrase: string[];
	
	    static createFrom(source: any = {}) {
	        return new Created(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.workspace = this.convertValues(source["workspace"], Workspace);
	        this.recoveryPhrase = source["recoveryPhrase"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class MentionRef {
	    user: string;
	    name: string;
	    start: number;
	    end: number;
	    you?: boolean;
	
	    static createFrom(source: any = {}) {
	        return new MentionRef(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.user = source["user"];
	        this.name = source["name"];
	        this.start = source["start"];
	        this.end = source["end"];
	        this.you = source["you"];
	    }
	}
	export class Message {
	    id: string;
	    channel: string;
	    author: string;
	    mine: boolean;
	    text: string;
	    sentAt: number;
	    state: 'sent' | 'pending' | 'failed';
	    error?: Error;
	    kind?: '' | 'joined';
	    edited?: boolean;
	    change?: '' | 'edit' | 'delete';
	    mentions?: MentionRef[];
	    mentionsMe?: boolean;
	
	    static createFrom(source: any = {}) {
	        return new Message(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.channel = source["channel"];
	        this.author = source["author"];
	        this.mine = source["mine"];
	        this.text = source["text"];
	        this.sentAt = source["sentAt"];
	        this.state = source["state"];
	        this.error = this.convertValues(source["error"], Error);
	        this.kind = source["kind"];
	        this.edited = source["edited"];
	        this.change = source["change"];
	        this.mentions = this.convertValues(source["mentions"], MentionRef);
	        this.mentionsMe = source["mentionsMe"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class DMSent {
	    channel: Channel;
	    message: Message;
	
	    static createFrom(source: any = {}) {
	        return new DMSent(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.channel = this.convertValues(source["channel"], Channel);
	        this.message = this.convertValues(source["message"], Message);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class DeviceRevocation {
	    device: string;
	    agents: number;
	    groups: string[];
	    accessVersion: number;
	
	    static createFrom(source: any = {}) {
	        return new DeviceRevocation(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.device = source["device"];
	        this.agents = source["agents"];
	        this.groups = source["groups"];
	        this.accessVersion = source["accessVersion"];
	    }
	}
	export class RetentionProposal {
	    id: string;
	    channel: string;
	    textDays: number;
	    mediaDays: number;
	    proposer: string;
	    proposedAt: number;
	    approvedBy: string[];
	    threshold: number;
	    approvable: boolean;
	    destroy: boolean;
	    checkpointAt: number;
	    expiresAt: number;
	    resolve: boolean;
	    resolveEpoch: number;
	
	    static createFrom(source: any = {}) {
	        return new RetentionProposal(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.channel = source["channel"];
	        this.textDays = source["textDays"];
	        this.mediaDays = source["mediaDays"];
	        this.proposer = source["proposer"];
	        this.proposedAt = source["proposedAt"];
	        this.approvedBy = source["approvedBy"];
	        this.threshold = source["threshold"];
	        this.approvable = source["approvable"];
	        this.destroy = source["destroy"];
	        this.checkpointAt = source["checkpointAt"];
	        this.expiresAt = source["expiresAt"];
	        this.resolve = source["resolve"];
	        this.resolveEpoch = source["resolveEpoch"];
	    }
	}
	export class StoragePoint {
	    at: number;
	    logBytes: number;
	    limitBytes: number;
	
	    static createFrom(source: any = {}) {
	        return new StoragePoint(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.at = source["at"];
	        this.logBytes = source["logBytes"];
	        this.limitBytes = source["limitBytes"];
	    }
	}
	export class GroupEncryption {
	    channel: string;
	    group: string;
	    kind: string;
	    history: 'open' | 'closed';
	    epoch: number;
	    devices: number;
	    people: number;
	    textDays: number;
	    mediaDays: number;
	    defaultPolicy: boolean;
	    chainFrozen: boolean;
	    lastCheckpoint: number;
	    verifiedFrom: number;
	
	    static createFrom(source: any = {}) {
	        return new GroupEncryption(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.channel = source["channel"];
	        this.group = source["group"];
	        this.kind = source["kind"];
	        this.history = source["history"];
	        this.epoch = source["epoch"];
	        this.devices = source["devices"];
	        this.people = source["people"];
	        this.textDays = source["textDays"];
	        this.mediaDays = source["mediaDays"];
	        this.defaultPolicy = source["defaultPolicy"];
	        this.chainFrozen = source["chainFrozen"];
	        this.lastCheckpoint = source["lastCheckpoint"];
	        this.verifiedFrom = source["verifiedFrom"];
	    }
	}
	export class HealthAction {
	    id: string;
	    label: string;
	    command: string;
	
	    static createFrom(source: any = {}) {
	        return new HealthAction(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.label = source["label"];
	        this.command = source["command"];
	    }
	}
	export class HealthFinding {
	    check: string;
	    title: string;
	    state: 'ok' | 'repaired' | 'action' | 'dismissed' | 'not_checked';
	    severity: 'info' | 'warning' | 'critical';
	    finding: string;
	    action?: HealthAction;
	    groups: string[];
	
	    static createFrom(source: any = {}) {
	        return new HealthFinding(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.check = source["check"];
	        this.title = source["title"];
	        this.state = source["state"];
	        this.severity = source["severity"];
	        this.finding = source["finding"];
	        this.action = this.convertValues(source["action"], HealthAction);
	        this.groups = source["groups"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class HealthReport {
	    at: number;
	    needsAction: boolean;
	    findings: HealthFinding[];
	
	    static createFrom(source: any = {}) {
	        return new HealthReport(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.at = source["at"];
	        this.needsAction = source["needsAction"];
	        this.findings = this.convertValues(source["findings"], HealthFinding);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class EncryptionHealth {
	    report: HealthReport;
	    groups: GroupEncryption[];
	    storage: StoragePoint[];
	    pending: RetentionProposal[];
	
	    static createFrom(source: any = {}) {
	        return new EncryptionHealth(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.report = this.convertValues(source["report"], HealthReport);
	        this.groups = this.convertValues(source["groups"], GroupEncryption);
	        this.storage = this.convertValues(source["storage"], StoragePoint);
	        this.pending = this.convertValues(source["pending"], RetentionProposal);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	
	
	
	
	
	export class Invite {
	    link: string;
	    expiresAt: number;
	    maxUses: number;
	    role: 'member' | 'admin';
	
	    static createFrom(source: any = {}) {
	        return new Invite(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.link = source["link"];
	        this.expiresAt = source["expiresAt"];
	        this.maxUses = source["maxUses"];
	        this.role = source["role"];
	    }
	}
	export class InviteRecord {
	    id: string;
	    role: 'member' | 'admin';
	    uses: number;
	    maxUses: number;
	    createdAt: number;
	    expiresAt: number;
	    createdBy: string;
	    mine: boolean;
	    scopes: string[];
	    joinedBy: string[];
	    state: 'live' | 'used' | 'expired' | 'revoked';
	
	    static createFrom(source: any = {}) {
	        return new InviteRecord(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.role = source["role"];
	        this.uses = source["uses"];
	        this.maxUses = source["maxUses"];
	        this.createdAt = source["createdAt"];
	        this.expiresAt = source["expiresAt"];
	        this.createdBy = source["createdBy"];
	        this.mine = source["mine"];
	        this.scopes = source["scopes"];
	        this.joinedBy = source["joinedBy"];
	        this.state = source["state"];
	    }
	}
	export class InviteScope {
	    group: string;
	    name: string;
	    root: boolean;
	    history: 'open' | 'closed';
	
	    static createFrom(source: any = {}) {
	        return new InviteScope(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.group = source["group"];
	        this.name = source["name"];
	        this.root = source["root"];
	        this.history = source["history"];
	    }
	}
	
	
	
	export class MessagePage {
	    messages: Message[];
	    more: boolean;
	
	    static createFrom(source: any = {}) {
	        return new MessagePage(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.messages = this.convertValues(source["messages"], Message);
	        this.more = source["more"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Pairing {
	    link: string;
	    expiresAt: number;
	    published: boolean;
	
	    static createFrom(source: any = {}) {
	        return new Pairing(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.link = source["link"];
	        this.expiresAt = source["expiresAt"];
	        this.published = source["published"];
	    }
	}
	export class Person {
	    user: string;
	    name: string;
	    you: boolean;
	    devices: number;
	
	    static createFrom(source: any = {}) {
	        return new Person(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.user = source["user"];
	        this.name = source["name"];
	        this.you = source["you"];
	        this.devices = source["devices"];
	    }
	}
	export class PhraseWord {
	    known: boolean;
	    suggest: string;
	
	    static createFrom(source: any = {}) {
	        return new PhraseWord(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.known = source["known"];
	        this.suggest = source["suggest"];
	    }
	}
	export class PhraseCheck {
	    words: PhraseWord[];
	    complete: boolean;
	    problem?: Error;
	
	    static createFrom(source: any = {}) {
	        return new PhraseCheck(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.words = this.convertValues(source["words"], PhraseWord);
	        this.complete = source["complete"];
	        this.problem = this.convertValues(source["problem"], Error);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	
	
	export class Project {
	    folder: string;
	    state: 'none' | 'local' | 'bound' | 'invalid';
	    name: string;
	    workspace: string;
	    relay: string;
	    member: boolean;
	    problem?: Error;
	
	    static createFrom(source: any = {}) {
	        return new Project(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.folder = source["folder"];
	        this.state = source["state"];
	        this.name = source["name"];
	        this.workspace = source["workspace"];
	        this.relay = source["relay"];
	        this.member = source["member"];
	        this.problem = this.convertValues(source["problem"], Error);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	
	
	export class ReceiptExport {
	    json: string;
	    page: string;
	
	    static createFrom(source: any = {}) {
	        return new ReceiptExport(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.json = source["json"];
	        this.page = source["page"];
	    }
	}
	
	export class RecoveryRotation {
	    phrase: string[];
	    rewrapped: number;
	    accessVersion: number;
	
	    static createFrom(source: any = {}) {
	        return new RecoveryRotation(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.phrase = source["phrase"];
	        this.rewrapped = source["rewrapped"];
	        this.accessVersion = source["accessVersion"];
	    }
	}
	export class RecoveryState {
	    unfinished: boolean;
	    unconfirmed: number;
	
	    static createFrom(source: any = {}) {
	        return new RecoveryState(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.unfinished = source["unfinished"];
	        this.unconfirmed = source["unconfirmed"];
	    }
	}
	
	export class RemovalPlan {
	    user: string;
	    name: string;
	    channel: string;
	    devices: number;
	    agents: number;
	    groups: number;
	    notMember: number;
	    invites: number;
	    recoveryKeys: number;
	    resumes: string;
	
	    static createFrom(source: any = {}) {
	        return new RemovalPlan(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.user = source["user"];
	        this.name = source["name"];
	        this.channel = source["channel"];
	        this.devices = source["devices"];
	        this.agents = source["agents"];
	        this.groups = source["groups"];
	        this.notMember = source["notMember"];
	        this.invites = source["invites"];
	        this.recoveryKeys = source["recoveryKeys"];
	        this.resumes = source["resumes"];
	    }
	}
	export class RetentionImpact {
	    messages: number;
	    bytes: number;
	
	    static createFrom(source: any = {}) {
	        return new RetentionImpact(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.messages = source["messages"];
	        this.bytes = source["bytes"];
	    }
	}
	export class RetentionChange {
	    channel: string;
	    textDays: number;
	    mediaDays: number;
	    impact: RetentionImpact;
	    applied: boolean;
	    active: boolean;
	    published: boolean;
	    note: string;
	
	    static createFrom(source: any = {}) {
	        return new RetentionChange(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.channel = source["channel"];
	        this.textDays = source["textDays"];
	        this.mediaDays = source["mediaDays"];
	        this.impact = this.convertValues(source["impact"], RetentionImpact);
	        this.applied = source["applied"];
	        this.active = source["active"];
	        this.published = source["published"];
	        this.note = source["note"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	
	
	
	export class SearchHit {
	    channel: string;
	    channelName: string;
	    message: Message;
	    words: string[];
	
	    static createFrom(source: any = {}) {
	        return new SearchHit(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.channel = source["channel"];
	        this.channelName = source["channelName"];
	        this.message = this.convertValues(source["message"], Message);
	        this.words = source["words"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class SecurityAlert {
	    id: string;
	    code: string;
	    tone: 'notice' | 'alert';
	    summary: string;
	    detail: string;
	    time: number;
	    actorName: string;
	    actorDevice: string;
	    device: string;
	    deviceName: string;
	    approve: boolean;
	    revoke: boolean;
	    rotate: boolean;
	    vouch: boolean;
	    acknowledged: number;
	    outcome: '' | 'dismissed' | 'approved' | 'vouched' | 'revoked' | 'rotated';
	
	    static createFrom(source: any = {}) {
	        return new SecurityAlert(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.code = source["code"];
	        this.tone = source["tone"];
	        this.summary = source["summary"];
	        this.detail = source["detail"];
	        this.time = source["time"];
	        this.actorName = source["actorName"];
	        this.actorDevice = source["actorDevice"];
	        this.device = source["device"];
	        this.deviceName = source["deviceName"];
	        this.approve = source["approve"];
	        this.revoke = source["revoke"];
	        this.rotate = source["rotate"];
	        this.vouch = source["vouch"];
	        this.acknowledged = source["acknowledged"];
	        this.outcome = source["outcome"];
	    }
	}
	export class WorkspaceSummary {
	    id: string;
	
	    static createFrom(source: any = {}) {
	        return new WorkspaceSummary(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	    }
	}
	export class Status {
	    version: string;
	    commit: string;
	    dataDir: string;
	    hasWorkspace: boolean;
	    workspaces: WorkspaceSummary[];
	
	    static createFrom(source: any = {}) {
	        return new Status(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.version = source["version"];
	        this.commit = source["commit"];
	        this.dataDir = source["dataDir"];
	        this.hasWorkspace = source["hasWorkspace"];
	        this.workspaces = this.convertValues(source["workspaces"], WorkspaceSummary);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	
	
	
	export class WorkspaceMember {
	    user: string;
	    name: string;
	    role: 'member' | 'admin';
	    you: boolean;
	    creator: boolean;
	    revoked: boolean;
	    joinedAt: number;
	
	    static createFrom(source: any = {}) {
	        return new WorkspaceMember(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.user = source["user"];
	        this.name = source["name"];
	        this.role = source["role"];
	        this.you = source["you"];
	        this.creator = source["creator"];
	        this.revoked = source["revoked"];
	        this.joinedAt = source["joinedAt"];
	    }
	}

}


/**
 * The room's state across a reconnection. The server sends its full state to a client that comes
 * back; colyseus.js 0.16 would decode it with a new decoder, dropping the callbacks the game had
 * registered with `getStateCallbacks(room)`. Instead the room's decoder is kept and emptied of the
 * old references, so the full state rebuilds `room.state` exactly as the server has it now:
 * - every item of a collection the game watches first gets its `onRemove`, then every current item
 *   its `onAdd` (so a game that creates and destroys things by onAdd/onRemove ends up right, with
 *   items gone meanwhile removed and new ones added);
 * - callbacks on the root state and its fields stay; callbacks registered on items (inside onAdd)
 *   are dropped with the items, and the game registers them again in onAdd.
 */
import type { Room } from "colyseus.js";

/** @colyseus/schema 3's OPERATION.DELETE: the key of onRemove callbacks in the decoder's registry. */
const DELETE = 64;

type Callback = (...args: unknown[]) => void;
interface ReferenceTracker {
  refs: Map<number, unknown>;
  refIds: WeakMap<object, number>;
  refCount: Record<number, number>;
  deletedRefs: Set<number>;
  callbacks: Record<number, Record<string | number, Callback[]> | undefined>;
  addRef(refId: number, ref: unknown, incrementCount?: boolean): void;
}
interface DecoderLike {
  state: object;
  root: ReferenceTracker;
  triggerChanges?: unknown;
}
interface SerializerLike {
  decoder?: DecoderLike;
  handshake?: (bytes: Uint8Array, it: { offset: number }) => void;
}

/** Call just before reconnecting `room`: its next handshake keeps the decoder and its callbacks. */
export function keepStateAcrossReconnection(room: Room): void {
  const serializer = (room as unknown as { serializer?: SerializerLike }).serializer;
  const kept = serializer?.decoder;
  const handshake = serializer?.handshake;
  if (!serializer || !kept || !handshake || Object.prototype.hasOwnProperty.call(serializer, "handshake")) return;
  serializer.handshake = function (bytes, it) {
    delete serializer.handshake; // back to the prototype's for any later join
    handshake.call(serializer, bytes, it);
    const fresh = serializer.decoder;
    if (!fresh || fresh === kept) return;
    removeEverything(kept.root);
    resetReferences(kept.root, kept.state);
    fresh.root = kept.root;
    fresh.triggerChanges = kept.triggerChanges;
  };
}

function isCollection(ref: unknown): ref is { forEach(cb: (value: unknown, key: unknown) => void): void } {
  return !!ref && typeof ref === "object" && typeof (ref as { forEach?: unknown }).forEach === "function";
}

/** onRemove for every item of every collection (and on each item), then forget the items' callbacks. */
function removeEverything(root: ReferenceTracker): void {
  const dropped = new Set<number>();
  for (const [refId, ref] of root.refs) {
    if (!isCollection(ref)) continue;
    const onRemove = root.callbacks[refId]?.[DELETE] ?? [];
    const items: Array<[unknown, unknown]> = [];
    ref.forEach((value, key) => items.push([value, key]));
    for (const [value, key] of items) {
      const itemId = value && typeof value === "object" ? root.refIds.get(value as object) : undefined;
      if (itemId !== undefined) {
        const own = root.callbacks[itemId]?.[DELETE] ?? [];
        for (let i = own.length - 1; i >= 0; i--) safely(() => own[i]());
        collectBelow(root, value as object, dropped);
      }
      for (let i = onRemove.length - 1; i >= 0; i--) safely(() => onRemove[i](value, key));
    }
  }
  for (const refId of dropped) delete root.callbacks[refId];
}

/** The item's reference and those reachable from it (nested schemas and collections). */
function collectBelow(root: ReferenceTracker, ref: object, into: Set<number>): void {
  const refId = root.refIds.get(ref);
  if (refId === undefined || into.has(refId)) return;
  into.add(refId);
  const children: unknown[] = [];
  if (isCollection(ref)) ref.forEach((value) => children.push(value));
  else for (const key in ref) children.push((ref as Record<string, unknown>)[key]);
  for (const child of children) if (child && typeof child === "object") collectBelow(root, child, into);
}

function resetReferences(root: ReferenceTracker, state: object): void {
  root.refs.clear();
  root.deletedRefs.clear();
  root.refCount = {};
  root.addRef(0, state);
}

function safely(run: () => void): void {
  try {
    run();
  } catch (err) {
    // A game's callback must not stop the others.
    if (typeof console !== "undefined") console.error(err);
  }
}

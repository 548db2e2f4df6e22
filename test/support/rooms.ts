/** Room clients a test opened: each test's leftovers are left (at most a second each) before the next. */
import type { Room } from "@colyseus/sdk";

export async function leaveRooms(rooms: Room[]): Promise<void> {
  const open = rooms.splice(0).filter((r) => r.connection.isOpen);
  const gone = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
  await Promise.all(open.map((r) => Promise.race([r.leave().then(() => undefined, () => undefined), gone(1000)])));
}

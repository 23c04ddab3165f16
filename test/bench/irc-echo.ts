/**
 * A bare IRC client in prx's place, in a process of its own (idle between messages as the channel process is): says
 * back at once whatever is said to it privately. `bun irc-echo.ts <port> <nick>`; prints "ready" once registered.
 */
import { ircPerson } from "../helpers/ngircd.ts";

const [port, nick] = [Number(process.argv[2]), process.argv[3]!];
const privmsg = new RegExp(`^:([^!\\s]+)![^ ]* PRIVMSG ${nick} :(.*)$`, "i");
await ircPerson(port, nick, undefined, (line, write) => {
  const said = privmsg.exec(line);
  if (said) write(`PRIVMSG ${said[1]} :${said[2]}\r\n`);
});
console.log("ready");

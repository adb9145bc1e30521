// /games/<id>/: one game, live.
import { boot } from "../api.js";
import { GameClient } from "../gameclient.js";

const data = boot();
const panel = document.querySelector("[data-game-panel]");
const client = new GameClient(panel, data.game, { me: data.me, endsAt: data.endsAt, race: data.race });
window.fc = { client, table: client.table };

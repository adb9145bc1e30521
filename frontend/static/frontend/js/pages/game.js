// /games/<id>/: one game, live; on a numbered deal, the record to beat above the table.
import { boot } from "../api.js";
import { GameClient } from "../gameclient.js";
import { RecordLine } from "../record.js";

const data = boot();
const panel = document.querySelector("[data-game-panel]");
const recordNode = document.querySelector("[data-testid=record]");
const record = recordNode ? new RecordLine(recordNode, data.game, { me: data.me }) : null;
const client = new GameClient(panel, data.game, {
  me: data.me,
  endsAt: data.endsAt,
  race: data.race,
  onChange: (game, shown) => record && record.update(game, shown.shownPly()),
});
window.fc = { client, table: client.table, record };

// /games/<id>/: one game, live; on a numbered deal, the record to beat above the table; the player's own
// won result's review when it is not `none`.
import { boot } from "../api.js";
import { ReviewNotice } from "../fairplay.js";
import { GameClient } from "../gameclient.js";
import { RecordLine } from "../record.js";

const data = boot();
const panel = document.querySelector("[data-game-panel]");
const recordNode = document.querySelector("[data-testid=record]");
const record = recordNode ? new RecordLine(recordNode, data.game, { me: data.me }) : null;
// The player's own won result, when fair play holds, clears or rejects it.
const review = new ReviewNotice(document.querySelector("[data-testid=review]"), { me: data.me });
const client = new GameClient(panel, data.game, {
  me: data.me,
  endsAt: data.endsAt,
  race: data.race,
  onChange: (game, shown) => {
    if (record) record.update(game, shown.shownPly());
    review.update(game);
  },
});
window.fc = { client, table: client.table, record, review };

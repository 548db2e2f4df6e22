/** Settings of the platforms' social services: subscribe messages. */
import { z } from "zod";
import { MINIPROGRAM_STATES } from "../../platforms/social-port";

export const socialShape = {
  SUBSCRIBE_MESSAGE_STATE: z.enum(MINIPROGRAM_STATES).default("formal"),
  SUBSCRIBE_MESSAGE_LANG: z.enum(["zh_CN", "en_US", "zh_HK", "zh_TW"]).default("zh_CN"),
};

type SocialSettings = z.output<z.ZodObject<typeof socialShape>>;

export function socialConfig(s: SocialSettings) {
  return {
    subscribeMessages: {
      /** Which build of the game a WeChat subscribe message opens (`miniprogram_state`). */
      state: s.SUBSCRIBE_MESSAGE_STATE,
      /** The language of the message's "open the game" line (WeChat `lang`). */
      lang: s.SUBSCRIBE_MESSAGE_LANG,
    },
  };
}

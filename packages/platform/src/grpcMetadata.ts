export const REQUEST_ID_KEY = "x-request-id";
export const CLIENT_IP_KEY = "x-client-ip";
